// Reading what the GPU probe (probes/gpu, docs/probes.md "The GPU probe")
// printed: its inventory document, and the sample lines of --watch. Pure and
// total: any text in, a value or the reason out; nothing thrown. Bounded: at
// most 64 devices and 4096 processes in all, a few MiB of text, a nesting of
// 16 levels, so that a probe gone wrong cannot make ftdiag allocate without
// limit.
#pragma once

#include <optional>
#include <string_view>

#include "base/fact.h"
#include "model/environment.h"

namespace ftdiag::parse {

inline constexpr std::size_t kMaxGpuDevices = 64;
inline constexpr std::size_t kMaxGpuProcesses = 4096;

// The inventory document, with `probed` true. Keys that are absent leave
// their field empty (the probe leaves out what it does not know); a key of
// the wrong type, or more than the bounds allow, makes the whole document
// Missing (unparseable), with the key's path in the detail. `command` is
// left empty: the caller knows how the probe was run. A process whose memory
// NVML could not see has `used` 0.
Fact<model::GpuInventory> parse_gpu_inventory(std::string_view json_text);

// One --watch line: {"time": …, "devices": [{"index", "memory_used_bytes",
// "processes"}]}. nullopt when it is not one.
std::optional<model::GpuMemorySample> parse_gpu_sample_line(std::string_view line);

}  // namespace ftdiag::parse
