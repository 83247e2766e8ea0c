#include "rules/data_file.h"

#include "evidence/json_input.h"
#include "rules/rule_loader.h"

namespace ftdiag::rules {

std::optional<nlohmann::json> parse_data_file_object(std::string_view text, const std::string& file_name,
                                                     std::string_view expected, std::vector<LoadError>& errors) {
  auto parsed = evidence::parse_json_input(text, {.allow_comments = true});
  if (auto* failure = std::get_if<evidence::JsonInputError>(&parsed)) {
    errors.push_back({file_name, {failure->line, failure->column}, failure->pointer, failure->message});
    return std::nullopt;
  }
  auto& root = std::get<nlohmann::json>(parsed);
  if (!root.is_object()) {
    errors.push_back({file_name, {}, "", std::string(expected)});
    return std::nullopt;
  }
  return std::move(root);
}

}  // namespace ftdiag::rules
