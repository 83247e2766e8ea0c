#include "journal/job_directory.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <ctime>

#include <fmt/format.h>

#include "base/files_at.h"

namespace ftdiag::journal {

Fact<RunDirectory> RunDirectory::create(const std::filesystem::path& job_dir, const std::string& run_name) {
  auto job_fd = make_directories(job_dir);
  if (!job_fd) return job_fd.missing();
  std::string chosen;
  auto run_fd = make_fresh_directory_at(job_fd->get(), run_name, chosen);
  if (!run_fd) return Missing{run_fd.missing().reason, run_fd.missing().detail + " in " + job_dir.string()};
  return RunDirectory(std::move(run_fd).value(), job_dir / chosen);
}

Fact<UniqueFd> RunDirectory::create_file(const char* name) const {
  auto file = create_file_at(dir_fd_.get(), name, O_APPEND);
  if (!file) return Missing{file.missing().reason, file.missing().detail + " in " + path_.string()};
  return file;
}

Fact<RunDirectory> RunDirectory::share() const {
  const int fd = ::fcntl(dir_fd_.get(), F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return missing_from_errno(errno, "dup the descriptor of " + path_.string());
  return RunDirectory(UniqueFd(fd), path_);
}

Fact<bool> RunDirectory::replace_file(const char* name, std::string_view bytes) const {
  auto replaced = replace_file_at(dir_fd_.get(), name, bytes);
  if (!replaced) return Missing{replaced.missing().reason, replaced.missing().detail + " in " + path_.string()};
  return replaced;
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

}  // namespace ftdiag::journal
