// Small, allocation-free text helpers every reader shares: trimming, numbers
// as programs print them, splitting into lines and fields. All total: a
// value that does not parse (junk, a sign where none may be, an overflow) is
// nullopt, never an exception, so a parser built from them cannot crash on
// garbage. Characters are classified as ASCII (base/ascii.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/ascii.h"

namespace ftdiag::text {

using ascii::is_blank;  // ' ', '\t': the separators within a line
using ascii::is_digit;
using ascii::is_space;  // any of " \t\n\r\v\f"

// Without the whitespace (is_space) at either end.
std::string_view trim(std::string_view s);
std::string_view trim_left(std::string_view s);
std::string_view trim_right(std::string_view s);

// Takes `prefix` off the front of `s` when it is there.
bool consume(std::string_view& s, std::string_view prefix);

std::optional<int> hex_digit(char c);

// Leading decimal digits of `s` (after an optional '-' for the signed
// forms), consumed; nullopt when there are none or they overflow.
std::optional<std::uint64_t> take_u64(std::string_view& s);
std::optional<std::int64_t> take_i64(std::string_view& s);
std::optional<int> take_int(std::string_view& s);
// Leading hex digits, with an optional "0x".
std::optional<std::uint64_t> take_hex(std::string_view& s);

// The whole of `s` as a number (no spaces, no '+'); nullopt when anything
// else is there.
std::optional<std::uint64_t> to_u64(std::string_view s);
std::optional<std::int64_t> to_i64(std::string_view s);
std::optional<int> to_int(std::string_view s);
std::optional<std::uint64_t> to_hex(std::string_view s);

std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b);

// Splits on '\n'; a trailing newline does not produce an empty last line.
std::vector<std::string_view> lines(std::string_view text);
// Splits on runs of whitespace; no empty fields.
std::vector<std::string_view> fields(std::string_view text);
// Splits on every occurrence of sep; keeps empty fields.
std::vector<std::string_view> split(std::string_view text, char sep);

}  // namespace ftdiag::text
