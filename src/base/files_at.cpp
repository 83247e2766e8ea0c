#include "base/files_at.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <random>

#include <fmt/format.h>

namespace ftdiag {

namespace {

int write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return ENOSPC;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

// A name no one can guess in advance: a planted file cannot wait for it, and
// O_EXCL refuses it if one is there anyway.
std::string temporary_name(const std::string& name) {
  static thread_local std::mt19937_64 generator{std::random_device{}()};
  return fmt::format(".{}.{:016x}.tmp", name, generator());
}

// Creates NAME (O_EXCL, O_NOFOLLOW, 0600 past the umask) into `out`: 0, or
// the errno of the call that failed (nothing is left behind then).
int create_private_file(int dir_fd, const std::string& name, int extra_flags, UniqueFd& out) {
  const int fd = ::openat(dir_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | extra_flags,
                          kPrivateFileMode);
  if (fd < 0) return errno;
  UniqueFd file(fd);
  if (::fchmod(fd, kPrivateFileMode) != 0) {
    const int error = errno;
    ::unlinkat(dir_fd, name.c_str(), 0);
    return error;
  }
  out = std::move(file);
  return 0;
}

}  // namespace

Fact<UniqueFd> open_directory_at(int at_fd, const std::filesystem::path& path) {
  const int fd = ::openat(at_fd, path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) return UniqueFd(fd);
  const int error = errno;
  // O_DIRECTORY|O_NOFOLLOW on a symlink fails with ENOTDIR (or ELOOP): say
  // what it really is.
  struct stat st {};
  if (::fstatat(at_fd, path.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
    return Missing{MissingReason::permission_denied, path.string() + " is a symlink; refusing to follow it"};
  }
  return missing_from_errno(error, "open directory " + path.string());
}

Fact<UniqueFd> make_fresh_directory_at(int dir_fd, const std::string& base_name, std::string& chosen) {
  for (int attempt = 1; attempt < 1000; ++attempt) {
    std::string name = attempt == 1 ? base_name : fmt::format("{}-{}", base_name, attempt);
    if (::mkdirat(dir_fd, name.c_str(), kPrivateFolderMode) != 0) {
      if (errno == EEXIST) continue;
      return missing_from_errno(errno, "mkdir " + name);
    }
    auto opened = open_directory_at(dir_fd, name);
    if (!opened) return opened;
    // The umask may have taken bits away; 0700 is what we promise.
    if (::fchmod(opened->get(), kPrivateFolderMode) != 0) return missing_from_errno(errno, "chmod " + name);
    chosen = std::move(name);
    return opened;
  }
  return Missing{MissingReason::failed, "too many folders named " + base_name};
}

Fact<UniqueFd> make_directories(const std::filesystem::path& path) {
  std::filesystem::path partial;
  for (const auto& component : path) {
    partial /= component;
    if (::mkdir(partial.c_str(), kPrivateFolderMode) == 0) {
      ::chmod(partial.c_str(), kPrivateFolderMode);  // past the umask; best effort
    } else if (errno != EEXIST) {
      return missing_from_errno(errno, "mkdir " + partial.string());
    }
  }
  return open_directory_at(AT_FDCWD, path);
}

Fact<UniqueFd> create_file_at(int dir_fd, const std::string& name, int extra_flags) {
  UniqueFd file;
  if (const int error = create_private_file(dir_fd, name, extra_flags, file)) {
    return missing_from_errno(error, "create " + name);
  }
  return file;
}

Fact<bool> replace_file_at(int dir_fd, const std::string& name, std::string_view bytes) {
  std::string temporary;
  UniqueFd file;
  int error = EEXIST;
  // A clash with a name made by another writer (or planted) is tried again
  // under another random name; anything else is a real failure.
  for (int attempt = 0; attempt < 8 && error == EEXIST; ++attempt) {
    temporary = temporary_name(name);
    error = create_private_file(dir_fd, temporary, 0, file);
  }
  if (error != 0) return missing_from_errno(error, "create " + temporary);
  // No fsync: readers need a whole file or none, which the rename gives; the
  // journal, not these files, is what must survive a crash of the node.
  error = write_all(file.get(), bytes);
  const int fd = file.release();
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && ::renameat(dir_fd, temporary.c_str(), dir_fd, name.c_str()) != 0) error = errno;
  if (error == 0) return true;
  ::unlinkat(dir_fd, temporary.c_str(), 0);
  return missing_from_errno(error, "write " + name);
}

Fact<bool> replace_file(const std::filesystem::path& path, std::string_view bytes) {
  const auto folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  const auto name = path.filename().string();
  if (name.empty() || name == "." || name == "..") {
    return Missing{MissingReason::failed, path.string() + " names a folder, not a file"};
  }
  // The folder as the user named it: its components may be links they made.
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return missing_from_errno(errno, "open directory " + folder.string());
  UniqueFd dir(fd);
  auto replaced = replace_file_at(dir.get(), name, bytes);
  if (!replaced) return Missing{replaced.missing().reason, replaced.missing().detail + " in " + folder.string()};
  return replaced;
}

}  // namespace ftdiag
