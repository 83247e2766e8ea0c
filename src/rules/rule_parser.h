// Internal to the rule loader: the parser of one rule file. Split from
// rule_loader.cpp so that rule fields (rule_parser.cpp) and the condition
// language (condition_parser.cpp) each have a file of their own.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/registry.h"
#include "rules/rule_loader.h"

namespace ftdiag::rules {

using nlohmann::json;

// Validation state for one rule file. Each method checks one part of the
// format and reports what is wrong through error(), at the JSON pointer of
// the offending value; a part with errors yields nullopt.
class RuleFileParser {
 public:
  RuleFileParser(std::string_view text, std::string file, RuleSet& into)
      : text_(text), file_(std::move(file)), into_(into), positions_(index_json_positions(text)) {}

  void parse();

 private:
  // The position of a pointer, or of its nearest indexed ancestor.
  TextPosition locate(const std::string& pointer) const {
    for (std::string p = pointer;; p = p.substr(0, p.rfind('/'))) {
      if (auto it = positions_.find(p); it != positions_.end()) return it->second;
      if (p.empty()) return {};
    }
  }

  void error(const std::string& pointer, std::string message) {
    ++errors_;
    into_.errors.push_back({file_, locate(pointer), pointer, std::move(message)});
  }

  std::optional<Rule> rule(const json& j, const std::string& at);
  std::optional<Condition> condition(const json& j, const std::string& at, int depth = 0);
  std::optional<Condition> comparison(const json& j, const std::string& at);
  std::optional<Condition> other_fact_comparison(Condition c, const json& value, const facts::FactSpec& spec, const std::string& at);
  std::optional<facts::FactValue> operand(const json& j, const facts::FactSpec& spec, const std::string& at);
  void check_template(const std::string& text, const std::string& at);
  std::optional<std::string> string_field(const json& j, const char* key, const std::string& at, bool required);
  std::vector<WeightedCondition> weighted(const json& j, const char* key, const std::string& at);

  std::string_view text_;
  std::string file_;
  RuleSet& into_;
  std::map<std::string, TextPosition> positions_;
  std::size_t errors_ = 0;
};

}  // namespace ftdiag::rules
