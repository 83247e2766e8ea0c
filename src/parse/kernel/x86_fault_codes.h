// The x86 page-fault error code of a "segfault at" line, in words.
#pragma once

#include <cstdint>
#include <string>

namespace ftdiag::parse {

// "user-mode write to an unmapped address", "instruction fetch from a
// non-executable page", ... (bits: arch/x86/include/asm/trap_pf.h).
std::string describe_page_fault_error(std::uint64_t error_code);

}  // namespace ftdiag::parse
