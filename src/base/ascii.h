// ASCII character classes and runs, the same in every locale: the text ftdiag
// reads (logs, reports, configs) is classified byte by byte, and a byte above
// 0x7f is never a letter, digit or space here.
#pragma once

#include <cstddef>
#include <string_view>

namespace ftdiag::ascii {

constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
constexpr bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
constexpr bool is_alpha(char c) { return is_lower(c) || is_upper(c); }
constexpr bool is_alnum(char c) { return is_alpha(c) || is_digit(c); }
constexpr bool is_hex_digit(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
// A space or a tab: the separators within one line.
constexpr bool is_blank(char c) { return c == ' ' || c == '\t'; }
// Any of " \t\n\r\v\f", as C's isspace in the "C" locale.
constexpr bool is_space(char c) { return is_blank(c) || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
constexpr char to_lower(char c) { return is_upper(c) ? static_cast<char>(c - 'A' + 'a') : c; }

// How many bytes from `at` on satisfy `pred` (0 when `at` is past the end).
template <class Pred>
constexpr std::size_t run_length(std::string_view text, std::size_t at, Pred pred) {
  std::size_t n = 0;
  while (at + n < text.size() && pred(text[at + n])) ++n;
  return n;
}

// Whether `text` holds `word` (lower case) in any case of ASCII letters.
constexpr bool contains_ignoring_case(std::string_view text, std::string_view word) {
  if (word.size() > text.size()) return false;
  for (std::size_t at = 0; at + word.size() <= text.size(); ++at) {
    std::size_t i = 0;
    while (i < word.size() && to_lower(text[at + i]) == word[i]) ++i;
    if (i == word.size()) return true;
  }
  return false;
}

}  // namespace ftdiag::ascii
