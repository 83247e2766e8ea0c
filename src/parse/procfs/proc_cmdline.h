// /proc/PID/cmdline: the argument vector, NUL separated (proc(5)).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ftdiag::parse {

// Pure and total: splits at NUL; one trailing NUL is optional, empty arguments
// in the middle are kept. Empty text (kernel thread, zombie) gives {}. A
// process that rewrote argv with spaces instead of NULs yields one element.
std::vector<std::string> parse_proc_cmdline(std::string_view text);

}  // namespace ftdiag::parse
