#include "base/text.h"

#include <limits>

namespace ftdiag::text {

std::string_view trim_left(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  return s;
}

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view trim(std::string_view s) { return trim_right(trim_left(s)); }

bool consume(std::string_view& s, std::string_view prefix) {
  if (!s.starts_with(prefix)) return false;
  s.remove_prefix(prefix.size());
  return true;
}

std::optional<int> hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return std::nullopt;
}

std::optional<std::uint64_t> take_u64(std::string_view& s) {
  std::size_t i = 0;
  std::uint64_t value = 0;
  constexpr auto max = std::numeric_limits<std::uint64_t>::max();
  for (; i < s.size() && is_digit(s[i]); ++i) {
    const auto digit = static_cast<std::uint64_t>(s[i] - '0');
    if (value > (max - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  if (i == 0) return std::nullopt;
  s.remove_prefix(i);
  return value;
}

std::optional<std::int64_t> take_i64(std::string_view& s) {
  std::string_view rest = s;
  const bool negative = consume(rest, "-");
  auto magnitude = take_u64(rest);
  constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  // The most negative value has one more in magnitude than the most positive.
  if (!magnitude || *magnitude > max + (negative ? 1 : 0)) return std::nullopt;
  s = rest;
  if (negative) return *magnitude == max + 1 ? std::numeric_limits<std::int64_t>::min() : -static_cast<std::int64_t>(*magnitude);
  return static_cast<std::int64_t>(*magnitude);
}

std::optional<int> take_int(std::string_view& s) {
  std::string_view rest = s;
  auto value = take_i64(rest);
  if (!value || *value > std::numeric_limits<int>::max() || *value < std::numeric_limits<int>::min()) return std::nullopt;
  s = rest;
  return static_cast<int>(*value);
}

std::optional<std::uint64_t> take_hex(std::string_view& s) {
  std::string_view rest = s;
  if (!consume(rest, "0x")) consume(rest, "0X");
  std::size_t i = 0;
  std::uint64_t value = 0;
  for (; i < rest.size(); ++i) {
    auto digit = hex_digit(rest[i]);
    if (!digit) break;
    if (value >> 60) return std::nullopt;  // a 17th significant digit
    value = value * 16 + static_cast<std::uint64_t>(*digit);
  }
  if (i == 0) return std::nullopt;
  rest.remove_prefix(i);
  s = rest;
  return value;
}

namespace {

template <class T, class Take>
std::optional<T> whole(std::string_view s, Take take) {
  auto value = take(s);
  return value && s.empty() ? value : std::nullopt;
}

}  // namespace

std::optional<std::uint64_t> to_u64(std::string_view s) { return whole<std::uint64_t>(s, take_u64); }
std::optional<std::int64_t> to_i64(std::string_view s) { return whole<std::int64_t>(s, take_i64); }
std::optional<int> to_int(std::string_view s) { return whole<int>(s, take_int); }
std::optional<std::uint64_t> to_hex(std::string_view s) { return whole<std::uint64_t>(s, take_hex); }

std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

std::vector<std::string_view> lines(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    auto newline = text.find('\n');
    out.push_back(text.substr(0, newline));
    if (newline == std::string_view::npos) break;
    text.remove_prefix(newline + 1);
  }
  return out;
}

std::vector<std::string_view> fields(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) ++i;
    std::size_t start = i;
    while (i < text.size() && !is_space(text[i])) ++i;
    if (i > start) out.push_back(text.substr(start, i - start));
  }
  return out;
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    auto at = text.find(sep);
    out.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return out;
    text.remove_prefix(at + 1);
  }
}

}  // namespace ftdiag::text
