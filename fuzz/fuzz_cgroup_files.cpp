// libFuzzer target: cgroupfs value formats and /proc/PID/cgroup.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/procfs/cgroup_files.h"
#include "parse/procfs/proc_cgroup.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto limit = ftdiag::parse::parse_u64_or_max(text);
  // A limit that parsed is either unlimited or below v1's unlimited marker.
  if (limit && limit->has_value() && **limit >= ftdiag::parse::kCgroupV1Unlimited) __builtin_trap();
  (void)ftdiag::parse::parse_u64(text);
  (void)ftdiag::parse::parse_flat_keyed(text);
  auto groups = ftdiag::parse::parse_proc_cgroup(text);
  if (groups) {
    for (const auto& group : *groups) {
      if (group.path.empty() || group.path.front() != '/' || group.hierarchy_id < 0) __builtin_trap();
    }
  }
  return 0;
}
