#include <doctest/doctest.h>

#include <string>

#include "rule_text.h"
#include "rules/condition.h"

using namespace ftdiag;
using namespace ftdiag::rules;
using ftdiag::rules::testing::facts_of;
using ftdiag::rules::testing::parse_text;
using ftdiag::rules::testing::rule_file;
using Op = Condition::Op;

namespace {

Condition comparison(std::string fact, Op op, std::vector<facts::FactValue> operands) {
  Condition c;
  c.kind = Condition::Kind::compare;
  c.fact = std::move(fact);
  c.op = op;
  c.operands = std::move(operands);
  return c;
}

Condition group(Condition::Kind kind, std::vector<Condition> children) {
  Condition c;
  c.kind = kind;
  c.children = std::move(children);
  return c;
}

Condition negate(Condition inner) { return group(Condition::Kind::negation, {std::move(inner)}); }

const Condition kHolds = comparison("death.signal", Op::eq, {std::int64_t{9}});
const Condition kFails = comparison("death.signal", Op::eq, {std::int64_t{15}});
const Condition kUnknown = comparison("cgroup.oom_kill", Op::gt, {std::int64_t{0}});  // not in the set

const facts::FactSet kConditionFacts = facts_of({{"death.signal", std::int64_t{9}},
                                        {"cgroup.peak_ratio", 0.97},
                                        {"phase.at_death", std::string("checkpoint-save")},
                                        {"console.tail", std::string("step 10\nKilled\n")}});

}  // namespace

TEST_CASE("condition: all / any / not are three-valued") {
  using K = Condition::Kind;
  CHECK(evaluate(group(K::all, {kHolds, kHolds}), kConditionFacts) == Truth::yes);
  CHECK(evaluate(group(K::all, {kHolds, kUnknown}), kConditionFacts) == Truth::unknown);
  CHECK(evaluate(group(K::all, {kUnknown, kFails}), kConditionFacts) == Truth::no);
  CHECK(evaluate(group(K::any, {kFails, kUnknown}), kConditionFacts) == Truth::unknown);
  CHECK(evaluate(group(K::any, {kUnknown, kHolds}), kConditionFacts) == Truth::yes);
  CHECK(evaluate(group(K::any, {kFails, kFails}), kConditionFacts) == Truth::no);
  CHECK(evaluate(negate(kHolds), kConditionFacts) == Truth::no);
  CHECK(evaluate(negate(kFails), kConditionFacts) == Truth::yes);
  CHECK(evaluate(negate(kUnknown), kConditionFacts) == Truth::unknown);
}

TEST_CASE("condition: a comparison on a missing fact is unknown, whatever the operator") {
  for (Op op : {Op::eq, Op::ne, Op::lt, Op::lte, Op::gt, Op::gte, Op::in}) {
    CAPTURE(static_cast<int>(op));
    CHECK(evaluate(comparison("cgroup.limit_bytes", op, {std::int64_t{1}}), kConditionFacts) == Truth::unknown);
  }
  facts::FactSet with_missing;
  with_missing.set_missing("cgroup.limit_bytes", Missing{MissingReason::not_present, "no memory limit"});
  CHECK(evaluate(comparison("cgroup.limit_bytes", Op::ne, {std::int64_t{0}}), with_missing) == Truth::unknown);
}

TEST_CASE("condition: exists is never unknown") {
  CHECK(evaluate(comparison("death.signal", Op::exists, {true}), kConditionFacts) == Truth::yes);
  CHECK(evaluate(comparison("death.signal", Op::exists, {false}), kConditionFacts) == Truth::no);
  CHECK(evaluate(comparison("cgroup.limit_bytes", Op::exists, {true}), kConditionFacts) == Truth::no);
  CHECK(evaluate(comparison("cgroup.limit_bytes", Op::exists, {false}), kConditionFacts) == Truth::yes);
  EvaluationTrace trace;
  evaluate(negate(comparison("cgroup.limit_bytes", Op::exists, {true})), kConditionFacts, &trace);
  CHECK(trace.missing.empty());
}

TEST_CASE("condition: integers and numbers compare numerically") {
  CHECK(evaluate(comparison("death.signal", Op::eq, {9.0}), kConditionFacts) == Truth::yes);
  CHECK(evaluate(comparison("death.signal", Op::ne, {9.0}), kConditionFacts) == Truth::no);
  CHECK(evaluate(comparison("death.signal", Op::lt, {9.5}), kConditionFacts) == Truth::yes);
  CHECK(evaluate(comparison("cgroup.peak_ratio", Op::gte, {0.97}), kConditionFacts) == Truth::yes);
  CHECK(evaluate(comparison("cgroup.peak_ratio", Op::gt, {0.97}), kConditionFacts) == Truth::no);
  CHECK(evaluate(comparison("cgroup.peak_ratio", Op::lte, {std::int64_t{1}}), kConditionFacts) == Truth::yes);
  const auto big = facts_of({{"cgroup.limit_bytes", std::int64_t{8} << 30}});
  CHECK(evaluate(comparison("cgroup.limit_bytes", Op::eq, {8589934592.0}), big) == Truth::yes);
}

TEST_CASE("condition: in compares with each operand") {
  CHECK(evaluate(comparison("death.signal", Op::in, {std::int64_t{1}, std::int64_t{9}, std::int64_t{15}}), kConditionFacts) == Truth::yes);
  CHECK(evaluate(comparison("death.signal", Op::in, {std::int64_t{1}, std::int64_t{15}}), kConditionFacts) == Truth::no);
  CHECK(evaluate(comparison("death.signal", Op::in, {9.0}), kConditionFacts) == Truth::yes);
  CHECK(evaluate(comparison("phase.at_death", Op::in, {std::string("model-load"), std::string("checkpoint-save")}), kConditionFacts) ==
        Truth::yes);
  CHECK(evaluate(comparison("phase.at_death", Op::in, {std::string("training")}), kConditionFacts) == Truth::no);
}

TEST_CASE("condition: matches searches the string with the compiled pattern") {
  const auto set = parse_text(rule_file({{"when", R"({"fact": "console.tail", "matches": "(?m)^Killed$"})"}}));
  REQUIRE(set.rules.size() == 1);
  const Condition& c = set.rules[0].when;
  CHECK(evaluate(c, kConditionFacts) == Truth::yes);
  CHECK(evaluate(c, facts_of({{"console.tail", std::string("all went well\n")}})) == Truth::no);
  CHECK(evaluate(c, facts::FactSet{}) == Truth::unknown);
}

TEST_CASE("condition: describe() reads like the rule") {
  using K = Condition::Kind;
  const Condition c = group(K::all, {kHolds, group(K::any, {comparison("cgroup.peak_ratio", Op::gte, {0.9}), kUnknown})});
  CHECK(describe(c) == "death.signal = 9 and (cgroup.peak_ratio >= 0.9 or cgroup.oom_kill > 0)");
  CHECK(describe(negate(comparison("cgroup.limit_bytes", Op::exists, {true}))) == "not (cgroup.limit_bytes is known)");
  CHECK(describe(comparison("cgroup.limit_bytes", Op::exists, {false})) == "cgroup.limit_bytes is missing");
  CHECK(describe(comparison("phase.at_death", Op::in, {std::string("a"), std::string("b")})) == "phase.at_death in [\"a\", \"b\"]");
  CHECK(describe(comparison("death.signal", Op::in, {std::int64_t{1}, std::int64_t{9}})) == "death.signal in [1, 9]");
  CHECK(describe(comparison("phase.at_death", Op::ne, {std::string("training")})) == "phase.at_death != \"training\"");
  CHECK(describe(comparison("death.is_job", Op::eq, {true})) == "death.is_job = true");
  CHECK(describe(comparison("death.after", Op::lt, {std::int64_t{5}})) == "death.after < 5");
  CHECK(describe(comparison("node.min_available_ratio", Op::lte, {0.05})) == "node.min_available_ratio <= 0.05");
}

TEST_CASE("condition: the trace lists missing facts and the facts of comparisons that held") {
  using K = Condition::Kind;
  EvaluationTrace trace;
  const Condition c = group(K::all, {kHolds, group(K::any, {kFails, kUnknown, comparison("cgroup.peak_ratio", Op::gte, {0.9})})});
  CHECK(evaluate(c, kConditionFacts, &trace) == Truth::yes);
  CHECK(trace.used == std::set<std::string>{"death.signal", "cgroup.peak_ratio"});
  CHECK(trace.missing == std::set<std::string>{"cgroup.oom_kill"});

  EvaluationTrace negated;
  CHECK(evaluate(negate(group(K::all, {kHolds, kFails})), kConditionFacts, &negated) == Truth::yes);
  CHECK(negated.used.empty());  // facts under `not` are not evidence for the rule

  EvaluationTrace unknown;
  CHECK(evaluate(negate(kUnknown), kConditionFacts, &unknown) == Truth::unknown);
  CHECK(unknown.missing == std::set<std::string>{"cgroup.oom_kill"});
}

TEST_CASE("condition: collect_facts names every fact once") {
  using K = Condition::Kind;
  std::set<std::string> names;
  collect_facts(group(K::all, {kHolds, negate(kUnknown), group(K::any, {kFails, kUnknown})}), names);
  CHECK(names == std::set<std::string>{"death.signal", "cgroup.oom_kill"});
}
