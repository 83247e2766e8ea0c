#include "supervise/tracefs.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include <fmt/format.h>

#include "base/unique_fd.h"

namespace ftdiag::supervise {

namespace {

bool is_tracefs(const std::string& path) {
  struct statfs info {};
  return ::statfs(path.c_str(), &info) == 0 && info.f_type == TRACEFS_MAGIC;
}

Missing cannot_mount(int error, const std::string& mount_point) {
  const std::string why = fmt::format("tracefs is not mounted and cannot be mounted at {}: {}", mount_point,
                                      std::strerror(error));
  if (error == EPERM || error == EACCES) return {MissingReason::permission_denied, why + " (needs root: CAP_SYS_ADMIN)"};
  if (error == ENODEV) return {MissingReason::unsupported, why + " (the kernel was built without tracefs)"};
  if (error == ENOENT) return {MissingReason::unsupported, why + " (no mount point: Linux 4.1+ has one)"};
  return {MissingReason::failed, why};
}

// "ftdiag-1234" -> 1234 for prefix "ftdiag-"; 0 when the name is not one.
int pid_of_instance(std::string_view name, std::string_view prefix) {
  if (name.substr(0, prefix.size()) != prefix) return 0;
  const std::string_view digits = name.substr(prefix.size());
  int pid = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
  if (digits.empty() || error != std::errc{} || end != digits.data() + digits.size() || pid <= 0) return 0;
  return pid;
}

bool process_exists(int pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

}  // namespace

Fact<TracefsRoot> find_or_mount_tracefs(const TracefsLocations& locations) {
  for (const auto& candidate : locations.candidates) {
    if (is_tracefs(candidate)) return TracefsRoot{candidate, false};
  }
  // The same options systemd's sys-kernel-tracing.mount uses.
  if (::mount("nodev", locations.mount_point.c_str(), "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
    return cannot_mount(errno, locations.mount_point);
  }
  return TracefsRoot{locations.mount_point, true};
}

void unmount_tracefs(const TracefsRoot& root) {
  if (root.mounted_here) ::umount2(root.path.c_str(), 0);
}

int write_tracefs_file(const std::string& path, std::string_view text) {
  UniqueFd file(::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC));
  if (!file.valid()) return errno;
  ssize_t written;
  do written = ::write(file.get(), text.data(), text.size());
  while (written < 0 && errno == EINTR);
  if (written < 0) return errno;
  return static_cast<std::size_t>(written) == text.size() ? 0 : EIO;
}

int remove_stale_instances(const std::string& instances_dir, std::string_view prefix) {
  std::vector<std::string> stale;
  DIR* dir = ::opendir(instances_dir.c_str());
  if (dir == nullptr) return 0;
  while (const dirent* entry = ::readdir(dir)) {
    const int pid = pid_of_instance(entry->d_name, prefix);
    if (pid != 0 && pid != ::getpid() && !process_exists(pid)) stale.push_back(instances_dir + "/" + entry->d_name);
  }
  ::closedir(dir);
  int removed = 0;
  // rmdir takes the instance's events and buffers with it, enabled or not.
  for (const auto& path : stale) removed += ::rmdir(path.c_str()) == 0 ? 1 : 0;
  return removed;
}

}  // namespace ftdiag::supervise
