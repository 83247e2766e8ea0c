#include "estimate/term.h"

#include <cmath>

#include <fmt/format.h>

#include "base/units.h"

namespace ftdiag::estimate {

double sum(const std::vector<Term>& terms) {
  double total = 0;
  for (const auto& term : terms) total += term.bytes;
  return total;
}

std::string parameters_text(double parameters) {
  if (parameters >= 1e9) return fmt::format("{:.2f} B", parameters / 1e9);
  if (parameters >= 1e6) return fmt::format("{:.1f} M", parameters / 1e6);
  if (parameters >= 1e3) return fmt::format("{:.1f} K", parameters / 1e3);
  return fmt::format("{:.0f}", parameters);
}

std::string size_text(double bytes) { return format_bytes(bytes > 0 ? static_cast<std::uint64_t>(bytes) : 0); }

std::string ranks_text(double ranks) { return fmt::format("{} rank{}", ranks, ranks == 1 ? "" : "s"); }

}  // namespace ftdiag::estimate
