#include "collect/host/system_settings.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <iterator>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "collect/host/cgroup_locate.h"
#include "collect/host/cgroup_read.h"
#include "collect/host/dev_shm.h"
#include "collect/host/meminfo.h"
#include "collect/host/mountinfo.h"
#include "collect/host/oom_daemons.h"
#include "collect/read_parsed.h"
#include "parse/procfs/sysctl.h"

namespace ftdiag::collect {
namespace {

using model::Bytes;
using Limit = Fact<std::optional<Bytes>>;

// ---- /proc/meminfo

Fact<Bytes> meminfo_field(const Fact<parse::MemInfo>& info, std::optional<std::uint64_t> parse::MemInfo::*field,
                          const char* key, const char* why_absent) {
  if (!info) return info.missing();
  if (const auto& value = (*info).*field) return *value;
  return Missing{MissingReason::not_present, fmt::format("/proc/meminfo has no {} line ({})", key, why_absent)};
}

void read_memory(const SystemRoots& roots, model::SystemSettings& s) {
  const auto info = read_meminfo(roots);
  s.mem_total = meminfo_field(info, &parse::MemInfo::mem_total, "MemTotal", "unexpected on any kernel");
  s.mem_available = meminfo_field(info, &parse::MemInfo::mem_available, "MemAvailable", "needs Linux 3.14+");
  s.swap_total = meminfo_field(info, &parse::MemInfo::swap_total, "SwapTotal", "a kernel built without swap");
}

// ---- the memory cgroup's effective limit

// A job is held to the smallest limit on its cgroup's path to the root: each
// ancestor charges its descendants' pages to itself (v2 always; v1 when the
// ancestor's memory.use_hierarchy is 1, always so since Linux 5.11). Ancestors
// above the cgroup namespace's root or the mount's root are invisible here:
// their limits apply too, but cannot be read, so the result is then an upper
// bound (a container's own limit is usually on its namespace root, which is
// visible).

// How many levels above `directory` are inside its cgroup mount: the walk
// stops at the mount's root. 0 when no cgroup mount holds it.
std::size_t levels_above(const SystemRoots& roots, const std::filesystem::path& directory) {
  auto mounts = read_mountinfo(roots);
  if (!mounts) return 0;
  std::optional<std::size_t> levels;
  for (const auto& mount : *mounts) {
    if (mount.fs_type != "cgroup" && mount.fs_type != "cgroup2") continue;
    const auto below = directory.lexically_relative(roots.path(mount.mount_point));
    if (below.empty() || *below.begin() == "..") continue;
    const auto depth = below == "." ? 0 : static_cast<std::size_t>(std::distance(below.begin(), below.end()));
    if (!levels || depth < *levels) levels = depth;  // the deepest mount holding it is the one it is under
  }
  return levels.value_or(0);
}

// A v1 ancestor with use_hierarchy 0 does not count its children's pages.
// When the file cannot be read, hierarchical, as every kernel since 5.11 is.
bool charges_descendants(const std::filesystem::path& directory, int version) {
  if (version != 1) return true;
  auto hierarchical = read_cgroup_u64(directory, "memory.use_hierarchy");
  return !hierarchical || *hierarchical != 0;
}

// The running minimum over the levels that have a limit file.
struct LimitFold {
  bool seen = false;
  std::optional<Bytes> smallest;  // nullopt: every level seen is unlimited
};

// A missing file is no limit on that level (v2: the root, or a level whose
// parent does not enable the memory controller for it); any other failure
// makes the effective limit unknown and is returned.
std::optional<Missing> fold_limit(const Limit& limit, LimitFold& fold) {
  if (!limit) {
    if (limit.missing().reason == MissingReason::not_present) return std::nullopt;
    return limit.missing();
  }
  fold.seen = true;
  if (limit.value() && (!fold.smallest || *limit.value() < *fold.smallest)) fold.smallest = limit.value();
  return std::nullopt;
}

Limit effective_limit(const SystemRoots& roots, const MemoryCgroup& cgroup) {
  const bool v1 = cgroup.version() == 1;
  const char* file = v1 ? "memory.limit_in_bytes" : "memory.max";
  const auto own = read_cgroup_limit(cgroup.directory(), file);
  LimitFold fold;
  if (auto failed = fold_limit(own, fold)) return *failed;
  auto directory = cgroup.directory();
  for (std::size_t up = levels_above(roots, directory); up > 0; --up) {
    directory = directory.parent_path();
    if (!charges_descendants(directory, cgroup.version())) break;
    if (auto failed = fold_limit(read_cgroup_limit(directory, file), fold)) return *failed;
  }
  // v2 without memory.max anywhere: the pages are charged to the root, which
  // cannot be limited. Every v1 level has limit_in_bytes, so its absence
  // there is a failure to report.
  if (!fold.seen && v1) return own.missing();
  return fold.smallest;
}

void read_cgroup_limit_of(const SystemRoots& roots, int pid, model::SystemSettings& s) {
  auto located = locate_memory_cgroup(roots, pid);
  if (!located) {
    s.cgroup_limit = located.missing();
    return;
  }
  s.cgroup = located.value()->cgroup_path();
  s.cgroup_limit = effective_limit(roots, *located.value());
}

// ---- /dev/shm

void read_shm(const SystemRoots& roots, model::SystemSettings& s) {
  const auto usage = read_dev_shm_usage(roots);
  if (!usage) {
    s.shm_total = s.shm_available = usage.missing();
    return;
  }
  s.shm_total = usage->total;
  s.shm_available = usage->available;
}

// ---- resource limits, of this process

std::optional<std::uint64_t> finite(rlim_t value) {
  if (value == RLIM_INFINITY) return std::nullopt;
  return static_cast<std::uint64_t>(value);
}

Fact<model::ResourceLimit> resource_limit(int resource, const char* name) {
  struct rlimit limit {};
  if (::getrlimit(resource, &limit) != 0) return missing_from_errno(errno, fmt::format("getrlimit({})", name));
  return model::ResourceLimit{finite(limit.rlim_cur), finite(limit.rlim_max)};
}

// ---- the kernel's log and core dumps

// Opening is the check: the kernel refuses the open itself (devkmsg_open ->
// check_syslog_permissions) when dmesg_restrict is 1 and CAP_SYSLOG is missing.
Fact<bool> kernel_log_readable(const SystemRoots& roots) {
  const auto path = roots.path("/dev/kmsg");
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd >= 0) {
    ::close(fd);
    return true;
  }
  const int error = errno;
  if (error == EPERM || error == EACCES) return false;
  return missing_from_errno(error, "open " + path.string());
}

void read_kernel_settings(const SystemRoots& roots, model::SystemSettings& s) {
  constexpr std::size_t kMaxSettingBytes = 4096;  // core_pattern is at most 128 bytes (CORENAME_MAX_SIZE)
  s.dmesg_restrict = read_parsed(roots.path("/proc/sys/kernel/dmesg_restrict"), kMaxSettingBytes, parse::parse_sysctl_int);
  s.core_pattern = read_parsed(roots.path("/proc/sys/kernel/core_pattern"), kMaxSettingBytes, parse::parse_core_pattern);
  s.kernel_log_readable = kernel_log_readable(roots);
}

// ---- this process's CPUs

// The CPUs this process may run on (taskset, a Slurm or container cpuset),
// which is what a job started from here gets, not the host's count. The set
// grows until it holds the kernel's mask (EINVAL: too small).
std::optional<int> usable_cpus() {
  for (std::size_t cpus = 1024; cpus <= (1U << 20); cpus *= 2) {
    cpu_set_t* set = CPU_ALLOC(cpus);
    if (set == nullptr) return std::nullopt;
    const std::size_t size = CPU_ALLOC_SIZE(cpus);
    const int rc = ::sched_getaffinity(0, size, set);
    const int error = errno;
    const int count = rc == 0 ? CPU_COUNT_S(size, set) : 0;
    CPU_FREE(set);
    if (rc == 0) return count;
    if (error != EINVAL) return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

model::SystemSettings read_system_settings(const SystemRoots& roots, int pid) {
  model::SystemSettings s;
  read_memory(roots, s);
  read_cgroup_limit_of(roots, pid, s);
  read_shm(roots, s);
  s.memlock = resource_limit(RLIMIT_MEMLOCK, "RLIMIT_MEMLOCK");
  s.nofile = resource_limit(RLIMIT_NOFILE, "RLIMIT_NOFILE");
  s.core = resource_limit(RLIMIT_CORE, "RLIMIT_CORE");
  read_kernel_settings(roots, s);
  s.oom_daemons = running_oom_daemons(roots);
  s.cpu_count = usable_cpus();
  s.as_root = ::geteuid() == 0;
  return s;
}

model::SystemSettings read_system_settings(const SystemRoots& roots) {
  return read_system_settings(roots, static_cast<int>(::getpid()));
}

}  // namespace ftdiag::collect
