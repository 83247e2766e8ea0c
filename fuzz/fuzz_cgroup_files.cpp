// libFuzzer target: cgroupfs value formats and /proc/PID/cgroup.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/host/cgroup_files.h"
#include "collect/host/proc_cgroup.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto limit = ftdiag::collect::parse_u64_or_max(text);
  // A limit that parsed is either unlimited or below v1's unlimited marker.
  if (limit && limit->has_value() && **limit >= ftdiag::collect::kCgroupV1Unlimited) __builtin_trap();
  (void)ftdiag::collect::parse_u64(text);
  (void)ftdiag::collect::parse_flat_keyed(text);
  auto groups = ftdiag::collect::parse_proc_cgroup(text);
  if (groups) {
    for (const auto& group : *groups) {
      if (group.path.empty() || group.path.front() != '/' || group.hierarchy_id < 0) __builtin_trap();
    }
  }
  return 0;
}
