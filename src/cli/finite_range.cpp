#include "cli/finite_range.h"

#include <cmath>
#include <string>

#include <fmt/format.h>

namespace ftdiag::cli {

CLI::Validator finite_in_range(double low, double high) {
  return CLI::Validator(
      [low, high](std::string& text) -> std::string {
        double value = 0;
        try {
          std::size_t used = 0;
          value = std::stod(text, &used);
          if (used != text.size()) return {};  // not a number: the option's own conversion says so
        } catch (const std::exception&) {
          return {};
        }
        if (std::isfinite(value) && value >= low && value <= high) return {};
        return fmt::format("must be a number from {} to {}, not {}", low, high, text);
      },
      // What --help shows after the option's type.
      fmt::format("{} to {}", low, high));
}

}  // namespace ftdiag::cli
