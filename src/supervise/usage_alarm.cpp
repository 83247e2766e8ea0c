#include "supervise/usage_alarm.h"

#include <fcntl.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

namespace ftdiag::supervise {

Fact<UsageAlarm> UsageAlarm::arm(const collect::MemoryCgroup& cgroup, std::uint64_t limit, const std::vector<double>& ratios) {
  if (cgroup.version() != 1) {
    return Missing{MissingReason::unsupported, "cgroup v2 has no usage thresholds (the sampler speeds up near the limit instead)"};
  }
  UniqueFd event(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!event.valid()) return missing_from_errno(errno, "eventfd");
  const auto usage_path = cgroup.directory() / "memory.usage_in_bytes";
  UniqueFd usage(::open(usage_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!usage.valid()) return missing_from_errno(errno, "open " + usage_path.string());
  const auto control_path = cgroup.directory() / "cgroup.event_control";
  UniqueFd control(::open(control_path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!control.valid()) return missing_from_errno(errno, "open " + control_path.string());
  for (double ratio : ratios) {
    const auto threshold = static_cast<std::uint64_t>(static_cast<double>(limit) * ratio);
    const auto line = fmt::format("{} {} {}", event.get(), usage.get(), threshold);
    if (::write(control.get(), line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
      return missing_from_errno(errno, "write " + control_path.string());
    }
  }
  return UsageAlarm(std::move(event), std::move(usage), cgroup.cgroup_path(), limit);
}

std::uint64_t UsageAlarm::drain() {
  std::uint64_t count = 0;
  if (::read(event_.get(), &count, sizeof count) != static_cast<ssize_t>(sizeof count)) return 0;
  return count;
}

}  // namespace ftdiag::supervise
