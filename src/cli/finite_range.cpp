#include "cli/finite_range.h"

#include <cmath>
#include <string>

#include <fmt/format.h>

namespace ftdiag::cli {

CLI::Validator finite_in_range(double low, double high) {
  return CLI::Validator(
      [low, high](std::string& text) -> std::string {
        const std::string refused = fmt::format("must be a number from {} to {}, not \"{}\"", low, high, text);
        try {
          std::size_t used = 0;
          const double value = std::stod(text, &used);
          if (used == text.size() && std::isfinite(value) && value >= low && value <= high) return {};
        } catch (const std::exception&) {
          // Not a number, or beyond a double's range ("1e999").
        }
        return refused;
      },
      // What --help shows after the option's type.
      fmt::format("{} to {}", low, high));
}

}  // namespace ftdiag::cli
