#include "collect/text_scan.h"

#include <charconv>
#include <limits>

namespace ftdiag::collect::text {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

template <class T>
static std::optional<T> parse_whole(std::string_view text) {
  if (text.empty()) return std::nullopt;
  // from_chars accepts a leading '-' for signed types only; a '+' never.
  T value{};
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<std::uint64_t> to_u64(std::string_view text) {
  return parse_whole<std::uint64_t>(text);
}

std::optional<std::int64_t> to_i64(std::string_view text) {
  return parse_whole<std::int64_t>(text);
}

std::optional<int> to_int(std::string_view text) { return parse_whole<int>(text); }

std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

std::optional<std::uint64_t> kib_value_to_bytes(std::string_view text) {
  auto parts = fields(text);
  // procfs prints "kB" and means KiB (fs/proc/meminfo.c show_val_kb). Without
  // the unit the line was cut short, so the number cannot be trusted.
  if (parts.size() != 2 || parts[1] != "kB") return std::nullopt;
  auto number = to_u64(parts[0]);
  if (!number) return std::nullopt;
  return checked_mul(*number, 1024);
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

static bool is_octal(char c) { return c >= '0' && c <= '7'; }

std::string unescape_octal(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    bool escape = text[i] == '\\' && text.size() - i >= 4 && is_octal(text[i + 1]) &&
                  is_octal(text[i + 2]) && is_octal(text[i + 3]);
    if (escape) {
      int value = (text[i + 1] - '0') * 64 + (text[i + 2] - '0') * 8 + (text[i + 3] - '0');
      out.push_back(static_cast<char>(value & 0xff));
      i += 3;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

}  // namespace ftdiag::collect::text
