// /proc/meminfo: machine-wide memory (proc(5), fs/proc/meminfo.c).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "base/fact.h"

namespace ftdiag::parse {

// All bytes (converted from kB = KiB). A field is absent when its line is
// missing (MemAvailable needs 3.14) or its value does not fit 64 bits.
struct MemInfo {
  std::optional<std::uint64_t> mem_total;
  std::optional<std::uint64_t> mem_free;
  std::optional<std::uint64_t> mem_available;
  std::optional<std::uint64_t> buffers;
  std::optional<std::uint64_t> cached;
  std::optional<std::uint64_t> shmem;         // includes /dev/shm and other tmpfs pages
  std::optional<std::uint64_t> swap_total;
  std::optional<std::uint64_t> swap_free;
  std::optional<std::uint64_t> commit_limit;
  std::optional<std::uint64_t> committed_as;

  bool operator==(const MemInfo&) const = default;
};

// Pure. Missing(unparseable) only when not one "Key: value" line is valid.
Fact<MemInfo> parse_meminfo(std::string_view text);

}  // namespace ftdiag::parse
