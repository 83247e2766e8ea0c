// Per-rule test cases, run by `ftdiag rules test` and by the test suite:
//
//   rules/tests/<rule-id>/<case>/expect.json
//   rules/tests/<rule-id>/<case>/evidence.json   an evidence document, or
//   rules/tests/<rule-id>/<case>/facts.json      a flat {"fact": value} object
//
// expect.json: {"fires": true|false, "min_confidence": 0.8, "max_confidence": 1,
//               "scope": "cgroup"|null, "verdict": CAUSE, "consequence_of": RULE}
// (all but "fires" optional). Every rule should have cases that must fire and
// cases that must not.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "rules/rule_loader.h"

namespace ftdiag::rules {

struct RuleTestResult {
  std::string name;  // "<rule-id>/<case>"
  bool passed = false;
  std::string detail;  // why it failed, or what it checked
};

// Tables (set.tables) derive their facts before each case is judged.
std::vector<RuleTestResult> run_rule_tests(const RuleSet& rules, const std::filesystem::path& tests_dir);

}  // namespace ftdiag::rules
