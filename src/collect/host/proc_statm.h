// /proc/PID/statm: memory sizes in pages (proc(5)); cheaper than status when
// only the resident size is needed.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/fact.h"
#include "collect/system_roots.h"

namespace ftdiag::collect {

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

// Reads roots.path("/proc/PID/statm") and converts with this machine's page
// size (sysconf(_SC_PAGESIZE)).
Fact<ProcStatm> read_proc_statm(const SystemRoots& roots, int pid);

}  // namespace ftdiag::collect
