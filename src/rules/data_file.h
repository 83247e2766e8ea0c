// The top level of a data file under rules/ (a table, the evidence file):
// JSON with comments, which must be an object.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ftdiag::rules {

struct LoadError;

// The parsed object, or nullopt with the problem added to `errors`: where the
// JSON is malformed, or `expected` (the file's form in words) when the top
// level is not an object.
std::optional<nlohmann::json> parse_data_file_object(std::string_view text, const std::string& file_name,
                                                     std::string_view expected, std::vector<LoadError>& errors);

}  // namespace ftdiag::rules
