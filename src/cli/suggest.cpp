#include "cli/suggest.h"

#include <algorithm>

#include <CLI/CLI.hpp>

namespace ftdiag::cli {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::optional<std::string> closest_name(std::string_view word, const std::vector<std::string>& names, bool prefixes) {
  // Words longer than any name are not worth a quadratic comparison.
  if (word.empty() || word.size() > 64) return std::nullopt;
  std::optional<std::string> closest;
  std::size_t best = 3;  // at most two edits away
  for (const auto& name : names) {
    const std::size_t distance = prefixes && name.starts_with(word) ? 1 : edit_distance(word, name);
    if (distance < best) {
      best = distance;
      closest = name;
    }
  }
  return closest;
}

std::vector<std::string> long_options_of(const CLI::App& command) {
  std::vector<std::string> names;
  for (const auto* option : command.get_options()) {
    for (const auto& name : option->get_lnames()) names.push_back("--" + name);
  }
  return names;
}

}  // namespace ftdiag::cli
