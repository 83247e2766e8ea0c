#include "evidence/job_directory.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <ctime>

#include <fmt/format.h>

namespace ftdiag::evidence {

namespace {

// mkdir -p with mode 0700 for the components we create; existing parents are
// left as they are (a user's /scratch may well be a symlink).
Fact<bool> make_directories(const std::filesystem::path& dir) {
  std::filesystem::path partial;
  for (const auto& component : dir) {
    partial /= component;
    if (::mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST) {
      return missing_from_errno(errno, "mkdir " + partial.string());
    }
  }
  return true;
}

Fact<UniqueFd> open_directory_nofollow(int at_fd, const std::filesystem::path& path) {
  int fd = ::openat(at_fd, path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    // O_DIRECTORY|O_NOFOLLOW on a symlink fails with ENOTDIR (or ELOOP): say
    // what it really is.
    struct stat st {};
    if (::fstatat(at_fd, path.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
      return Missing{MissingReason::permission_denied, path.string() + " is a symlink; refusing to follow it"};
    }
    return missing_from_errno(error, "open directory " + path.string());
  }
  return UniqueFd(fd);
}

}  // namespace

Fact<RunDirectory> RunDirectory::create(const std::filesystem::path& job_dir, const std::string& run_name) {
  if (auto made = make_directories(job_dir); !made) return made.missing();
  auto job_fd = open_directory_nofollow(AT_FDCWD, job_dir);
  if (!job_fd) return job_fd.missing();
  for (int attempt = 1; attempt < 1000; ++attempt) {
    std::string name = attempt == 1 ? run_name : fmt::format("{}-{}", run_name, attempt);
    if (::mkdirat(job_fd->get(), name.c_str(), 0700) != 0) {
      if (errno == EEXIST) continue;
      return missing_from_errno(errno, "mkdir " + (job_dir / name).string());
    }
    auto run_fd = open_directory_nofollow(job_fd->get(), name);
    if (!run_fd) return run_fd.missing();
    return RunDirectory(std::move(run_fd).value(), job_dir / name);
  }
  return Missing{MissingReason::failed, "too many runs named " + run_name + " in " + job_dir.string()};
}

Fact<UniqueFd> RunDirectory::create_file(const char* name) const {
  int fd = ::openat(dir_fd_.get(), name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return missing_from_errno(errno, "create " + (path_ / name).string());
  return UniqueFd(fd);
}

std::string run_folder_name(const std::string& host, std::optional<int> rank, int pid) {
  return rank ? fmt::format("{}-rank{}", host, *rank) : fmt::format("{}-pid{}", host, pid);
}

std::filesystem::path default_job_directory(const std::string& host, int pid) {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &utc);
  return std::filesystem::path("ftdiag-runs") / fmt::format("{}-{}-{}", stamp, host, pid);
}

}  // namespace ftdiag::evidence
