// The kernel's settings under /proc/sys/kernel that preflight reads
// (proc(5)): dmesg_restrict, a number, and core_pattern, a line of text.
#pragma once

#include <string>
#include <string_view>

#include "base/fact.h"

namespace ftdiag::parse {

// A setting that holds one integer ("1\n"). Missing(unparseable) otherwise.
Fact<int> parse_sysctl_int(std::string_view text);

// core_pattern as written: only the newline the kernel adds is dropped,
// since spaces may matter ("|/usr/lib/systemd/systemd-coredump %P ...").
Fact<std::string> parse_core_pattern(std::string_view text);

}  // namespace ftdiag::parse
