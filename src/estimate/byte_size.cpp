#include "estimate/byte_size.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

namespace ftdiag::estimate {

Fact<std::uint64_t> parse_byte_size(std::string_view text) {
  const std::string word(text);
  const char* start = word.c_str();
  char* end = nullptr;
  const double number = std::strtod(start, &end);
  if (end == start || !std::isfinite(number) || number <= 0) {
    return Missing{MissingReason::unparseable, fmt::format("\"{}\" is not a size (64G, 512GB, 64GiB)", text)};
  }
  std::string unit(end);
  while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
  for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  double scale = 0;
  if (unit.empty() || unit == "B") scale = 1;
  const char prefixes[] = {'K', 'M', 'G', 'T', 'P'};
  for (int i = 0; i < 5 && scale == 0; ++i) {
    const std::string p(1, prefixes[i]);
    if (unit == p + "B") scale = std::pow(1000.0, i + 1);
    if (unit == p || unit == p + "IB") scale = std::pow(1024.0, i + 1);
  }
  if (scale == 0) return Missing{MissingReason::unparseable, fmt::format("\"{}\": unknown unit \"{}\" (K, M, G, T or KiB, MiB, GiB, TiB: powers of 1024; KB, MB, GB, TB: of 1000)", text, unit)};
  const double bytes = number * scale;
  if (bytes > 1e18) return Missing{MissingReason::unparseable, fmt::format("\"{}\" is larger than any machine", text)};
  return static_cast<std::uint64_t>(std::llround(bytes));
}

}  // namespace ftdiag::estimate
