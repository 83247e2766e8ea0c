#include "collect/python_env/python_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/unique_fd.h"

namespace ftdiag::collect {
namespace {

Fact<std::string> read_open_file(int fd, const std::filesystem::path& path, std::size_t max_bytes) {
  std::string content;
  char buffer[16384];
  while (content.size() < max_bytes) {
    const std::size_t want = std::min(sizeof buffer, max_bytes - content.size());
    const ssize_t n = ::read(fd, buffer, want);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return missing_from_errno(errno, "read " + path.string());
    }
    content.append(buffer, static_cast<std::size_t>(n));
  }
  return content;
}

}  // namespace

Fact<std::string> read_regular_file(const std::filesystem::path& path, std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd.valid()) return missing_from_errno(errno, "open " + path.string());
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) return missing_from_errno(errno, "stat " + path.string());
  if (S_ISDIR(info.st_mode)) return Missing{MissingReason::not_present, path.string() + " is a directory"};
  if (!S_ISREG(info.st_mode)) return Missing{MissingReason::failed, path.string() + " is not a regular file"};
  return read_open_file(fd.get(), path, max_bytes);
}

Fact<DirectoryListing> list_directory(const std::filesystem::path& directory, std::size_t max_entries) {
  DIR* dir = ::opendir(directory.c_str());
  if (dir == nullptr) return missing_from_errno(errno, "open directory " + directory.string());
  DirectoryListing listing;
  int error = 0;
  for (;;) {
    errno = 0;  // readdir's end and its failure differ only in errno
    const dirent* entry = ::readdir(dir);
    if (entry == nullptr) {
      error = errno;
      break;
    }
    const std::string_view name(entry->d_name);
    if (name == "." || name == "..") continue;
    if (listing.names.size() >= max_entries) {
      listing.truncated = true;
      break;
    }
    listing.names.emplace_back(name);
  }
  ::closedir(dir);
  if (error != 0) return missing_from_errno(error, "read directory " + directory.string());
  std::sort(listing.names.begin(), listing.names.end());
  return listing;
}

bool path_is_directory(const std::filesystem::path& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

bool path_is_regular_file(const std::filesystem::path& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

bool path_is_symlink(const std::filesystem::path& path) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0 && S_ISLNK(info.st_mode);
}

}  // namespace ftdiag::collect
