// The condition language of rules: all / any / not over comparisons of facts.
//
//   {"all": [C, ...]}   {"any": [C, ...]}   {"not": C}
//   {"fact": "death.signal", "eq": 9}        eq ne lt lte gt gte
//   {"fact": "console.tail", "matches": "RE2 pattern"}
//   {"fact": "cgroup.limit_bytes", "exists": true}
//   {"fact": "phase.at_death", "in": ["checkpoint-save", "model-load"]}
//   {"fact": "torch.cuda_version", "gt": {"fact": "gpu.driver_cuda_version"}}
//
// A comparison's value may be another fact: the two are compared when both
// are known. Facts whose unit is `version` order as versions ("12.10" >
// "12.9", "535.104.05" < "570.26").
//
// Evaluation is three-valued: a comparison on a missing fact is unknown, so
// a rule never fires on a guess, and the report can list what was missing.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "facts/fact_set.h"

namespace re2 {
class RE2;
}

namespace ftdiag::rules {

enum class Truth { yes, no, unknown };

struct Condition {
  enum class Kind { all, any, negation, compare };
  enum class Op { eq, ne, lt, lte, gt, gte, matches, exists, in };

  Kind kind = Kind::all;
  std::vector<Condition> children;  // all, any; negation has one

  // compare
  std::string fact;
  Op op = Op::eq;
  std::vector<facts::FactValue> operands;  // one; several for `in`; for exists: the wanted bool; none when other_fact is set
  std::string other_fact;                  // compared with this fact's value instead of a constant
  bool version_order = false;              // lt/gt/... as versions (the fact's unit is version)
  std::shared_ptr<const re2::RE2> regex;   // compiled `matches` pattern
};

struct EvaluationTrace {
  std::set<std::string> missing;  // facts whose absence made something unknown
  std::set<std::string> used;     // facts of comparisons that held
};

Truth evaluate(const Condition& condition, const facts::FactSet& facts, EvaluationTrace* trace = nullptr);

// "death.signal = 9 and (cgroup.peak_ratio >= 0.9 or cgroup.oom_kill > 0)".
std::string describe(const Condition& condition);

// Every fact a condition names.
void collect_facts(const Condition& condition, std::set<std::string>& out);

}  // namespace ftdiag::rules
