// A rule, as loaded from rules/*.json (docs/rules.md explains the format).
#pragma once

#include <map>
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
  check,        // a risk found before anything died (preflight), with a severity
  // Names a root cause from weak evidence (the words of a line no recogniser
  // knows): the verdict only when no primary finding reaches the verdict
  // threshold, and never sure (the loader caps its confidence).
  fallback,
};

// The most a fallback rule's confidence and support may add up to: below
// "sure", so weak evidence is never stated as a fact.
inline constexpr double kFallbackMaxConfidence = 0.65;

// How much a check's finding matters: error (the job will fail or crash),
// warning (it may, or a diagnosis will be blind), info (worth knowing).
enum class Severity { info, warning, error };

std::string_view to_string(Severity severity);

struct Rule {
  std::string id;
  std::string cause;
  RuleRole role = RuleRole::primary;
  Severity severity = Severity::warning;  // checks only
  std::string title;
  double confidence = 0.5;  // before support and against
  Condition when;
  std::vector<WeightedCondition> support;
  std::vector<WeightedCondition> against;
  std::vector<ScopeChoice> scope;  // the first choice that holds; OOM causes only
  std::string summary;             // template
  std::vector<std::string> remediation;  // templates
  // Steps that do not fit some jobs: step i is left out when its condition
  // holds (advice on ZeRO stages for a job without DeepSpeed).
  std::map<std::size_t, Condition> remediation_unless;
  std::vector<std::string> references;
  // Rules this one is a more specific explanation of (the same death, more
  // evidence): when both fire and this one reaches the verdict threshold, it
  // wins whatever the confidences (engine.cpp).
  std::vector<std::string> refines;
  std::string refines_pointer;  // "/rules/3/refines", for errors found once every file is loaded
  TextPosition refines_position;
  std::string source;        // "rules/oom.json"
  std::string id_pointer;    // "/rules/3/id": where the id is, for errors found later
  TextPosition id_position;  // (a duplicate across files)
};

}  // namespace ftdiag::rules
