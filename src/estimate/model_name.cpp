#include "estimate/model_name.h"

#include <cctype>
#include <cstdlib>
#include <optional>
#include <string>

#include <fmt/format.h>

namespace ftdiag::estimate {

namespace {

bool is_separator(char c) { return c == '-' || c == '_' || c == '/' || c == '.' || c == ' ' || c == ':'; }

}  // namespace

Fact<std::uint64_t> parameters_from_model_name(std::string_view name) {
  // The part after the organisation: "meta-llama/Llama-2-7b-hf" -> "Llama-2-7b-hf".
  if (const auto slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
  std::optional<double> found;
  std::size_t i = 0;
  while (i < name.size()) {
    // A token starts at the name's start or after a separator.
    if (i > 0 && !is_separator(name[i - 1])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < name.size() && (std::isdigit(static_cast<unsigned char>(name[j])) || name[j] == '.')) ++j;
    if (j == i || j >= name.size()) {
      ++i;
      continue;
    }
    const char unit = static_cast<char>(std::tolower(static_cast<unsigned char>(name[j])));
    const bool ends = j + 1 == name.size() || is_separator(name[j + 1]);
    if (unit == 'x') return Missing{MissingReason::unparseable, fmt::format("\"{}\" names a mixture of experts, whose total the name does not state", name)};
    if ((unit == 'b' || unit == 'm') && ends) {
      const double value = std::strtod(std::string(name.substr(i, j - i)).c_str(), nullptr);
      if (value > 0) {
        if (found) return Missing{MissingReason::unparseable, fmt::format("\"{}\" states more than one size", name)};
        found = value * (unit == 'b' ? 1e9 : 1e6);
      }
    }
    i = j + 1;
  }
  if (!found) return Missing{MissingReason::not_present, fmt::format("\"{}\" states no parameter count", name)};
  return static_cast<std::uint64_t>(*found);
}

}  // namespace ftdiag::estimate
