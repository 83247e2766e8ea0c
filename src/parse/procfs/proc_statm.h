// /proc/PID/statm: memory sizes in pages (proc(5)); cheaper than status when
// only the resident size is needed.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/fact.h"

namespace ftdiag::parse {

struct ProcStatm {
  std::uint64_t size = 0;      // bytes, total program size (VmSize)
  std::uint64_t resident = 0;  // bytes, resident set (VmRSS)
  std::uint64_t shared = 0;    // bytes, resident file-backed + shmem pages (RssFile + RssShmem)

  bool operator==(const ProcStatm&) const = default;
};

// Pure. Converts the first three page counts to bytes with page_size.
// Missing(unparseable) when fewer than three numbers are present or a product
// overflows 64 bits.
Fact<ProcStatm> parse_proc_statm(std::string_view text, std::uint64_t page_size);

}  // namespace ftdiag::parse
