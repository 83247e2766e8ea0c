// Reads rule files and validates them loudly: an unknown fact, a comparison
// of the wrong type, an unknown cause, a bad regular expression or a typo in
// a key is a load error naming the file, line:column and JSON pointer.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules/data_tables.h"
#include "rules/evidence_needs.h"
#include "rules/json_positions.h"
#include "rules/rule.h"

namespace ftdiag::rules {

struct LoadError {
  std::string file;
  TextPosition position;
  std::string pointer;
  std::string message;

  // "rules/oom.json:14:9 (/rules/0/when/fact): unknown fact \"cgroup.peek\""
  std::string describe() const;
};

struct RuleSet {
  std::vector<Rule> rules;
  std::vector<DataTable> tables;  // files of kind "table": facts derived by lookup
  std::vector<EvidenceNeed> evidence;  // files of kind "evidence": what would decide an unknown verdict
  std::vector<LoadError> errors;

  bool ok() const { return errors.empty(); }
};

// Longest accepted `matches` pattern, and RE2's memory budget for one: RE2
// runs in linear time, and these bounds keep compiling cheap too.
inline constexpr std::size_t kMaxPatternLength = 4096;
inline constexpr std::int64_t kMaxPatternMemory = 1 << 20;

// Parses the text of one rule file ({"rules": [...]}, comments allowed) into
// `into`. Rules with errors are not added.
void parse_rule_file(std::string_view text, const std::string& file_name, RuleSet& into);

// Every data file says what it is with a top-level "kind": "rules" (the
// default: a user's file may leave it out), "table" (data_tables.h),
// "evidence" (evidence_needs.h), or a
// collector's pattern table ("phases", "log-events"), which the rule loader
// leaves to its own reader. Unknown kinds are errors.
enum class DataFileKind { rules, table, evidence, collector_patterns };
std::optional<DataFileKind> data_file_kind(std::string_view kind);

// One file, or every *.json directly in a directory: its rules and tables.
RuleSet load_rules(const std::filesystem::path& file_or_directory);

// Adds the rules of `more` to `base`; a duplicate id is an error.
void merge_rules(RuleSet& base, RuleSet more);

// The references between rules, checked once every file is loaded: each id a
// rule `refines` names a primary rule of `rules` or of `also_known` (the
// built-in rules, for a user's file linted alone), not itself, and
// refinements form no cycle. Only primary rules refine.
std::vector<LoadError> check_refinements(const std::vector<Rule>& rules, const std::vector<Rule>& also_known = {});

}  // namespace ftdiag::rules
