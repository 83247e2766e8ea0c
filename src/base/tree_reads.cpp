#include "base/tree_reads.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>

#include <fmt/format.h>

#include "base/read_file.h"

namespace ftdiag {

namespace fs = std::filesystem;

namespace {

constexpr int kReadFlags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;

fs::path without_trailing_slash(fs::path path) {
  path = path.lexically_normal();
  if (path.filename().empty() && path.has_parent_path() && path != path.root_path()) path = path.parent_path();
  return path;
}

// Where an open descriptor really is; empty when /proc cannot say.
std::string location_of(int fd) {
  std::array<char, 4096> target{};
  const std::string link = fmt::format("/proc/self/fd/{}", fd);
  const ssize_t n = ::readlink(link.c_str(), target.data(), target.size() - 1);
  return n > 0 ? std::string(target.data(), static_cast<std::size_t>(n)) : std::string();
}

Missing refused(const fs::path& path, std::string_view why) {
  return Missing{MissingReason::permission_denied, fmt::format("{}: {}; not read", path.string(), why)};
}

// The kernel lacks openat2 (ENOSYS) or a filter refuses it (EPERM from
// seccomp, E2BIG from an older struct size check).
bool openat2_unavailable(int error) { return error == ENOSYS || error == E2BIG || error == EPERM; }

// The O_NOFOLLOW walk of a kernel without openat2: every link is refused.
int open_without_links(int root_fd, const fs::path& relative, int flags, bool& met_link) {
  UniqueFd here(::fcntl(root_fd, F_DUPFD_CLOEXEC, 0));
  if (!here.valid()) return -1;
  std::vector<fs::path> parts(relative.begin(), relative.end());
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const bool last = i + 1 == parts.size();
    const int step_flags = last ? flags | O_NOFOLLOW : O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    const int fd = ::openat(here.get(), parts[i].c_str(), step_flags);
    if (fd < 0) {
      const int error = errno;
      struct stat st {};
      met_link = ::fstatat(here.get(), parts[i].c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
      errno = error;
      return -1;
    }
    here.reset(fd);
  }
  return here.release();
}

}  // namespace

Fact<TreeReads> TreeReads::open(const fs::path& path) {
  const fs::path root = without_trailing_slash(path);
  UniqueFd fd(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  struct stat st {};
  if (!fd.valid()) {
    if (errno != ENOTDIR) return missing_from_errno(errno, "open " + root.string());
    // A file named by the user is the tree by itself.
    if (::stat(root.c_str(), &st) != 0) return missing_from_errno(errno, "stat " + root.string());
    return TreeReads(root, UniqueFd(), OwnerAccess::of_user(0), {});
  }
  if (::fstat(fd.get(), &st) != 0) return missing_from_errno(errno, "stat " + root.string());
  std::string location = location_of(fd.get());
  return TreeReads(root, std::move(fd), OwnerAccess::of_user(st.st_uid), std::move(location));
}

bool TreeReads::holds(const fs::path& path) const {
  const fs::path relative = without_trailing_slash(path).lexically_relative(root_);
  return !relative.empty() && *relative.begin() != "..";
}

Fact<UniqueFd> TreeReads::open_beneath(const fs::path& path, bool folder) const {
  const int flags = kReadFlags | (folder ? O_DIRECTORY : 0);
  if (!root_fd_.valid()) {
    if (!holds(path)) return refused(path, "outside the path given");
    UniqueFd fd(::open(path.c_str(), flags));
    if (!fd.valid()) return missing_from_errno(errno, "open " + path.string());
    return fd;
  }
  if (!holds(path)) return refused(path, fmt::format("outside the tree {}", root_.string()));
  const fs::path relative = without_trailing_slash(path).lexically_relative(root_);
  struct open_how how {};
  how.flags = static_cast<std::uint64_t>(flags);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  int fd = static_cast<int>(::syscall(SYS_openat2, root_fd_.get(), relative.c_str(), &how, sizeof how));
  bool met_link = false;
  if (fd < 0 && openat2_unavailable(errno)) fd = open_without_links(root_fd_.get(), relative, flags, met_link);
  if (fd < 0) {
    const int error = errno;
    if (met_link) return refused(path, "a link (not followed: this kernel has no openat2 to keep it inside the tree)");
    if (error == EXDEV) return refused(path, "the link leaves the tree");
    if (error == ELOOP) return refused(path, "a link that cannot be followed (a loop, or a /proc link)");
    return missing_from_errno(error, "open " + path.string());
  }
  UniqueFd opened(fd);
  if (auto reach = owner_may_reach(opened.get(), path, relative); !reach) return reach.missing();
  return opened;
}

// The owner's view: the file's own bits, and the search bit of each folder
// on the way to where the file really is (a link inside the tree may lead
// into a folder the owner cannot enter).
Fact<bool> TreeReads::owner_may_reach(int fd, const fs::path& path, const fs::path& relative) const {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return missing_from_errno(errno, "stat " + path.string());
  if (owner_.is_root()) return true;
  if (!owner_.can_read(st)) return refused(path, fmt::format("the tree's owner (uid {}) cannot read it", owner_.uid()));
  fs::path way = relative;
  if (const std::string at = location_of(fd); !at.empty() && !root_location_.empty()) {
    way = fs::path(at).lexically_relative(root_location_);
    if (way.empty() || *way.begin() == "..") return refused(path, "it lies outside the tree");
  }
  // The folders it lies in: the root, then each one down to its own.
  std::vector<fs::path> folders{"."};
  const std::vector<fs::path> parts(way.begin(), way.end());
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) folders.push_back(folders.back() / parts[i]);
  for (const auto& folder : folders) {
    struct stat dir {};
    if (::fstatat(root_fd_.get(), folder.c_str(), &dir, AT_SYMLINK_NOFOLLOW) != 0) return missing_from_errno(errno, "stat " + path.string());
    if (!owner_.can_search(dir)) {
      return refused(path, fmt::format("the tree's owner (uid {}) cannot enter {}", owner_.uid(), (root_ / folder).lexically_normal().string()));
    }
  }
  return true;
}

Fact<UniqueFd> TreeReads::open_file(const fs::path& file) const {
  auto fd = open_beneath(file, false);
  if (!fd) return fd;
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return missing_from_errno(errno, "stat " + file.string());
  if (!S_ISREG(st.st_mode)) return Missing{MissingReason::not_present, file.string() + " is not a regular file"};
  return fd;
}

Fact<UniqueFd> TreeReads::open_folder(const fs::path& folder) const { return open_beneath(folder, true); }

Fact<std::string> TreeReads::read(const fs::path& file, std::size_t max_bytes) const {
  auto fd = open_file(file);
  if (!fd) return fd.missing();
  return read_small_file_fd(fd->get(), file.string(), max_bytes);
}

Fact<std::vector<TreeReads::Entry>> TreeReads::list(const fs::path& folder) const {
  auto fd = open_folder(folder);
  if (!fd) return fd.missing();
  DIR* dir = ::fdopendir(fd->get());
  if (dir == nullptr) return missing_from_errno(errno, "list " + folder.string());
  fd->release();  // the DIR owns it now
  std::vector<Entry> entries;
  const int dir_fd = ::dirfd(dir);
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    struct stat st {};
    if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    Kind kind = S_ISREG(st.st_mode) ? Kind::file : S_ISDIR(st.st_mode) ? Kind::folder : Kind::other;
    if (S_ISLNK(st.st_mode)) kind = ::fstatat(dir_fd, name.c_str(), &st, 0) == 0 && S_ISREG(st.st_mode) ? Kind::link_to_file : Kind::link;
    entries.push_back({name, kind});
  }
  ::closedir(dir);
  return entries;
}

}  // namespace ftdiag
