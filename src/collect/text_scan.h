// Small, allocation-free scanning helpers shared by the procfs/cgroupfs parsers.
//
// Internal to collect/: every function is total (never throws, never reads out
// of bounds) and reports "not a number" or overflow as std::nullopt, so a
// parser built from them cannot crash on garbage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ftdiag::collect::text {

bool is_space(char c);  // ' ', '\t', '\n', '\r', '\v', '\f'
std::string_view trim(std::string_view text);

// Decimal digits only (no sign, no spaces); nullopt on overflow or junk.
std::optional<std::uint64_t> to_u64(std::string_view text);
// Optional leading '-', then decimal digits; nullopt on overflow or junk.
std::optional<std::int64_t> to_i64(std::string_view text);
std::optional<int> to_int(std::string_view text);

// "  1760 kB" -> 1802240. Anything but "<digits> kB" (a bare number, another
// unit) is rejected, as is a product that overflows 64 bits.
std::optional<std::uint64_t> kib_value_to_bytes(std::string_view text);
std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b);

// Splits on '\n'; a trailing newline does not produce an empty last line.
std::vector<std::string_view> lines(std::string_view text);
// Splits on runs of whitespace; no empty fields.
std::vector<std::string_view> fields(std::string_view text);
// Splits on every occurrence of sep; keeps empty fields.
std::vector<std::string_view> split(std::string_view text, char sep);

// Undoes seq_escape()'s octal escapes ("\040" -> ' ') used by mountinfo.
std::string unescape_octal(std::string_view text);

}  // namespace ftdiag::collect::text
