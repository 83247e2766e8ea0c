// Pure parsers for the value formats of cgroupfs control files
// (Documentation/admin-guide/cgroup-v2.rst "Interface Files", cgroup-v1/memory.rst).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/fact.h"

namespace ftdiag::parse {

// v1 prints "unlimited" as PAGE_COUNTER_MAX * PAGE_SIZE, which is
// 0x7FFFFFFFFFFFF000 with 4 KiB pages but 0x7FFFFFFFFFFF0000 with the 64 KiB
// pages of many arm64 (GH200) kernels; anything at or above the smaller value
// (8 EiB) is treated as unlimited.
inline constexpr std::uint64_t kCgroupV1Unlimited = 0x7FFFFFFFFFFF0000ULL;

// A single-value file: "max\n" (v2) or a byte count. Returns nullopt for
// unlimited ("max" or >= kCgroupV1Unlimited), the number otherwise.
// Missing(unparseable) for anything else, including a value past 2^64.
Fact<std::optional<std::uint64_t>> parse_u64_or_max(std::string_view text);

// A single byte or event count ("360448\n"): memory.current, memory.failcnt.
// Missing(unparseable) unless the text is exactly one unsigned 64-bit number.
Fact<std::uint64_t> parse_u64(std::string_view text);

// "key value" lines: memory.events, memory.stat, memory.oom_control.
// Keys are looked up by name (their order is not stable and new keys appear).
// A line whose value is not an unsigned 64-bit number is skipped, so that key
// is absent; Missing(unparseable) when not one line is valid.
Fact<std::map<std::string, std::uint64_t>> parse_flat_keyed(std::string_view text);

// The pids of a cgroup.procs file: one decimal number per line.
// Missing(unparseable) for a line that is not one.
Fact<std::vector<int>> parse_cgroup_procs(std::string_view text);

}  // namespace ftdiag::parse
