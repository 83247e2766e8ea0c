// Helpers for the rules tests: rule files written as text (so load errors can
// be checked against the line:column where the offending value really is),
// and small fact sets.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "facts/fact_set.h"
#include "rules/json_positions.h"
#include "rules/rule_loader.h"

#ifndef FTDIAG_FIXTURES_DIR
#error "FTDIAG_FIXTURES_DIR must name the absolute path of tests/fixtures"
#endif

namespace ftdiag::rules::testing {

// The project's rules/ directory (tests/fixtures/../../rules).
inline std::filesystem::path project_rules_dir() {
  return (std::filesystem::path(FTDIAG_FIXTURES_DIR) / ".." / ".." / "rules").lexically_normal();
}

// Line and column (1-based, bytes) of the first occurrence of `needle`,
// found by plain text search: independent of the scanner under test.
inline TextPosition position_of(std::string_view text, std::string_view needle) {
  const auto at = text.find(needle);
  if (at == std::string_view::npos) return {0, 0};
  TextPosition p;
  for (std::size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') {
      ++p.line;
      p.column = 1;
    } else {
      ++p.column;
    }
  }
  return p;
}

using Field = std::pair<std::string, std::string>;  // key, raw JSON value ("" removes the key)

// A valid rule, one key per line, with `changes` replacing or adding keys,
// wrapped in a rule file. The rule is at /rules/0.
inline std::string rule_file(const std::vector<Field>& changes = {}) {
  std::vector<Field> fields = {
      {"id", R"("test-rule")"},
      {"cause", R"("external-kill")"},
      {"confidence", "0.6"},
      {"when", R"({"fact": "death.signal", "eq": 9})"},
      {"summary", R"("killed by {death.signal}")"},
      {"remediation", R"(["find who sent it"])"},
  };
  for (const auto& [key, value] : changes) {
    bool replaced = false;
    for (auto& field : fields) {
      if (field.first == key) {
        field.second = value;
        replaced = true;
      }
    }
    if (!replaced) fields.emplace_back(key, value);
  }
  std::string text = "{\n  \"rules\": [\n    {\n";
  bool first = true;
  for (const auto& [key, value] : fields) {
    if (value.empty()) continue;
    text += first ? "" : ",\n";
    text += "      \"" + key + "\": " + value;
    first = false;
  }
  text += "\n    }\n  ]\n}\n";
  return text;
}

inline RuleSet parse_text(std::string_view text, const std::string& file = "rules/test.json") {
  RuleSet set;
  parse_rule_file(text, file, set);
  return set;
}

// The rule file with `when` replaced, and its parse.
struct Loaded {
  std::string text;
  RuleSet set;
};

inline Loaded with_when(const std::string& when) {
  Loaded l{rule_file({{"when", when}}), {}};
  l.set = parse_text(l.text);
  return l;
}

inline facts::FactSet facts_of(std::vector<std::pair<std::string, facts::FactValue>> values) {
  facts::FactSet set;
  for (auto& [name, value] : values) set.set(name, std::move(value), "/test/" + name);
  return set;
}

}  // namespace ftdiag::rules::testing
