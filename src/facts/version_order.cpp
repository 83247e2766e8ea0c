#include "facts/version_order.h"

#include <cctype>
#include <cstdint>

namespace ftdiag::facts {

namespace {

std::string_view release_part(std::string_view v) {
  if (const auto plus = v.find('+'); plus != std::string_view::npos) v = v.substr(0, plus);
  return v;
}

// The value of the component starting at `pos` and the position after it.
std::uint64_t component(std::string_view v, std::size_t& pos) {
  std::uint64_t value = 0;
  std::size_t digits = 0;
  while (pos < v.size() && std::isdigit(static_cast<unsigned char>(v[pos]))) {
    // Saturate: a hostile "999999999999999999999" must not overflow.
    if (value < UINT64_MAX / 10 - 10) value = value * 10 + static_cast<std::uint64_t>(v[pos] - '0');
    ++pos;
    ++digits;
  }
  while (pos < v.size() && v[pos] != '.') ++pos;  // "0a0": the suffix is not compared
  if (pos < v.size()) ++pos;                      // the dot
  return digits ? value : 0;
}

}  // namespace

int compare_versions(std::string_view a, std::string_view b) {
  a = release_part(a);
  b = release_part(b);
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    const auto x = i < a.size() ? component(a, i) : 0;
    const auto y = j < b.size() ? component(b, j) : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

bool looks_like_version(std::string_view text) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  for (char c : text) {
    if (c == '+' || c == '-' || std::isalpha(static_cast<unsigned char>(c))) return true;
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return false;
  }
  return text.back() != '.';
}

}  // namespace ftdiag::facts
