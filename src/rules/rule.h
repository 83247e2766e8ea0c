// A rule, as loaded from rules/*.json (docs/rules.md explains the format).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rules/condition.h"
#include "rules/json_positions.h"

namespace ftdiag::rules {

// A piece of evidence that raises (support) or lowers (against) the
// confidence of a finding when its condition holds.
struct WeightedCondition {
  Condition condition;
  double weight = 0;
  std::string says;  // template: why this matters
};

struct ScopeChoice {
  Condition condition;
  std::string scope;  // node, cgroup, userspace
};

enum class RuleRole {
  primary,      // names a root cause
  consequence,  // describes what followed another finding (a launcher's teardown)
};

struct Rule {
  std::string id;
  std::string cause;
  RuleRole role = RuleRole::primary;
  std::string title;
  double confidence = 0.5;  // before support and against
  Condition when;
  std::vector<WeightedCondition> support;
  std::vector<WeightedCondition> against;
  std::vector<ScopeChoice> scope;  // the first choice that holds; OOM causes only
  std::string summary;             // template
  std::vector<std::string> remediation;  // templates
  std::vector<std::string> references;
  std::string source;        // "rules/oom.json"
  std::string id_pointer;    // "/rules/3/id": where the id is, for errors found later
  TextPosition id_position;  // (a duplicate across files)
};

}  // namespace ftdiag::rules
