// "Did you mean": the name closest to a mistyped word, for usage errors.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace ftdiag::cli {

// Edits (insertions, deletions, substitutions, swaps of neighbours) between two words.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The name at most two edits from `word` (or that `word` begins, when
// `prefixes` is set), the closest first; none when none is that close.
std::optional<std::string> closest_name(std::string_view word, const std::vector<std::string>& names, bool prefixes = false);

// The long options of a command, as typed: "--format", "--rules", ...
std::vector<std::string> long_options_of(const CLI::App& command);

}  // namespace ftdiag::cli
