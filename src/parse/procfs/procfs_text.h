// Text helpers of the procfs and cgroupfs parsers, on top of the shared
// ones (base/text.h, visible here as parse::text::trim and so on). Total:
// junk or an overflow is nullopt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/text.h"

namespace ftdiag::parse::text {

using namespace ftdiag::text;

// "  1760 kB" -> 1802240. Anything but "<digits> kB" (a bare number, another
// unit) is rejected, as is a product that overflows 64 bits.
std::optional<std::uint64_t> kib_value_to_bytes(std::string_view text);

// Undoes seq_escape()'s octal escapes ("\040" -> ' ') used by mountinfo.
std::string unescape_octal(std::string_view text);

}  // namespace ftdiag::parse::text
