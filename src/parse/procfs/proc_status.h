// /proc/PID/status: identity, namespaces and memory of one process.
// See proc(5) and fs/proc/array.c (proc_pid_status, task_mem).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/fact.h"

namespace ftdiag::parse {

// Every field is optional because kernel threads have no Vm*/Rss* lines,
// Rss{Anon,File,Shmem} appeared in 4.5 and NSpid in 4.1. Byte fields are
// converted from the kernel's "kB" (KiB); a value that overflows 64 bits is
// left absent rather than wrapped.
struct ProcStatus {
  std::optional<std::string> name;  // comm, with the kernel's \n and \\ escapes undone
  std::optional<char> state;        // 'R', 'S', 'D', 'Z', ... (first letter of "State:")
  std::optional<int> tgid;
  std::optional<int> ppid;
  std::vector<int> nspid;           // one pid per pid namespace level, outermost first; empty if absent
  std::optional<int> threads;
  std::optional<std::uint64_t> vm_rss;     // bytes
  std::optional<std::uint64_t> rss_anon;   // bytes
  std::optional<std::uint64_t> rss_file;   // bytes
  std::optional<std::uint64_t> rss_shmem;  // bytes
  std::optional<std::uint64_t> vm_hwm;     // bytes, peak resident set
  std::optional<std::uint64_t> vm_swap;    // bytes
  std::optional<std::uint64_t> vm_size;    // bytes, virtual size

  bool operator==(const ProcStatus&) const = default;
};

// Pure. Unknown keys and malformed lines are skipped; Missing(unparseable)
// only when no known key could be read at all. Never throws except bad_alloc.
Fact<ProcStatus> parse_proc_status(std::string_view text);

}  // namespace ftdiag::parse
