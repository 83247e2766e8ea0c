// /proc/PID/cmdline: the argument vector, NUL separated (proc(5)).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/fact.h"
#include "collect/system_roots.h"

namespace ftdiag::collect {

// The reader stops here: a training command line is rarely longer, and an
// argv of megabytes (a process that rewrote its own) must not bloat evidence.
inline constexpr std::size_t kMaxCmdlineBytes = 64 * 1024;

// Pure and total: splits at NUL; one trailing NUL is optional, empty arguments
// in the middle are kept. Empty text (kernel thread, zombie) gives {}. A
// process that rewrote argv with spaces instead of NULs yields one element.
std::vector<std::string> parse_proc_cmdline(std::string_view text);

// Reads at most kMaxCmdlineBytes of roots.path("/proc/PID/cmdline").
Fact<std::vector<std::string>> read_proc_cmdline(const SystemRoots& roots, int pid);

}  // namespace ftdiag::collect
