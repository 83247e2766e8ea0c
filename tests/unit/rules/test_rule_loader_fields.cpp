// Load errors in the parts of a rule other than `when`: keys, cause, scope,
// weights, texts and remediation.
#include <doctest/doctest.h>

#include <string>

#include "expect_load_error.h"
#include "rule_text.h"

using namespace ftdiag::rules;
using namespace ftdiag::rules::testing;

namespace {

const char* const kRuleStart = "{\n      \"id\"";  // where /rules/0 starts in rule_file()

}  // namespace

TEST_CASE("rule loader: a typo in a rule key is an error at that key's value") {
  const std::string text = rule_file({{"summary", ""}, {"sumary", R"("typo")"}});
  const RuleSet set = parse_text(text);
  expect_load_error(set, text, "/rules/0/sumary", "\"typo\"", "unknown key \"sumary\"");
  expect_load_error(set, text, "/rules/0", kRuleStart, "missing \"summary\"");
}

TEST_CASE("rule loader: an unknown cause id") {
  const std::string text = rule_file({{"cause", R"("oom")"}});
  expect_load_error(parse_text(text), text, "/rules/0/cause", "\"oom\"", "unknown cause \"oom\"");
}

TEST_CASE("rule loader: a scope on a cause that is not an OOM") {
  const std::string text = rule_file({{"scope", R"([{"if": {"fact": "death.signal", "eq": 9}, "scope": "node"}])"}});
  expect_load_error(parse_text(text), text, "/rules/0/scope", "[{\"if\"", "only OOM causes carry a scope");
}

TEST_CASE("rule loader: an invalid scope on an OOM cause") {
  const std::string text = rule_file(
      {{"cause", R"("container-oom")"}, {"scope", R"([{"if": {"fact": "death.signal", "eq": 9}, "scope": "pod"}])"}});
  expect_load_error(parse_text(text), text, "/rules/0/scope/0/scope", "\"pod\"", "node, cgroup or userspace");
}

TEST_CASE("rule loader: a weight out of range") {
  const std::string text = rule_file({{"support", R"([{"if": {"fact": "death.signal", "eq": 9}, "weight": 1.5, "says": "x"}])"}});
  expect_load_error(parse_text(text), text, "/rules/0/support/0/weight", "1.5", "from 0 to 1");
  const std::string negative = rule_file({{"against", R"([{"if": {"fact": "death.signal", "eq": 9}, "weight": -0.1, "says": "x"}])"}});
  expect_load_error(parse_text(negative), negative, "/rules/0/against/0/weight", "-0.1", "from 0 to 1");
}

TEST_CASE("rule loader: a support item without its parts, or with an extra key") {
  const std::string missing = rule_file({{"support", R"([{"if": {"fact": "death.signal", "eq": 9}, "weight": 0.1}])"}});
  expect_load_error(parse_text(missing), missing, "/rules/0/support/0", "{\"if\"", "needs \"if\", \"weight\" and \"says\"");
  const std::string extra = rule_file(
      {{"support", R"([{"if": {"fact": "death.signal", "eq": 9}, "weight": 0.1, "says": "x", "why": "y"}])"}});
  expect_load_error(parse_text(extra), extra, "/rules/0/support/0/why", "\"y\"", "unknown key \"why\"");
}

TEST_CASE("rule loader: confidence is required and within 0..1") {
  const std::string high = rule_file({{"confidence", "1.2"}});
  expect_load_error(parse_text(high), high, "/rules/0/confidence", "1.2", "from 0 to 1");
  const std::string absent = rule_file({{"confidence", ""}});
  expect_load_error(parse_text(absent), absent, "/rules/0", kRuleStart, "\"confidence\" is required");
}

TEST_CASE("rule loader: a text naming an unknown fact") {
  SUBCASE("summary") {
    const std::string text = rule_file({{"summary", R"("peak {cgroup.peek}")"}});
    expect_load_error(parse_text(text), text, "/rules/0/summary", "\"peak", "unknown fact \"{cgroup.peek}\"");
  }
  SUBCASE("a remediation step") {
    const std::string text = rule_file({{"remediation", R"(["ok", "raise {cgroup.limit}"])"}});
    expect_load_error(parse_text(text), text, "/rules/0/remediation/1", "\"raise", "unknown fact \"{cgroup.limit}\"");
  }
  SUBCASE("what a support item says") {
    const std::string text =
        rule_file({{"support", R"([{"if": {"fact": "death.signal", "eq": 9}, "weight": 0.1, "says": "{oom.kills}"}])"}});
    expect_load_error(parse_text(text), text, "/rules/0/support/0/says", "\"{oom.kills}\"", "unknown fact \"{oom.kills}\"");
  }
}

TEST_CASE("rule loader: remediation is required and non-empty") {
  const std::string absent = rule_file({{"remediation", ""}});
  expect_load_error(parse_text(absent), absent, "/rules/0", kRuleStart, "\"remediation\" is a non-empty array");
  const std::string empty = rule_file({{"remediation", "[]"}});
  expect_load_error(parse_text(empty), empty, "/rules/0/remediation", "[]", "non-empty array");
  const std::string not_text = rule_file({{"remediation", R"(["ok", 3])"}});
  expect_load_error(parse_text(not_text), not_text, "/rules/0/remediation/1", "3]", "a remediation step is a string");
}

TEST_CASE("rule loader: ids, roles and references are checked") {
  const std::string id = rule_file({{"id", R"("Bad_Id")"}});
  expect_load_error(parse_text(id), id, "/rules/0/id", "\"Bad_Id\"", "a-z, 0-9 and '-'");
  const std::string role = rule_file({{"role", R"("secondary")"}});
  expect_load_error(parse_text(role), role, "/rules/0/role", "\"secondary\"", "\"primary\", \"consequence\", \"check\" or \"fallback\"");
  const std::string refs = rule_file({{"references", R"(["a", 1])"}});
  expect_load_error(parse_text(refs), refs, "/rules/0/references", "[\"a\"", "an array of strings");
  const std::string when = rule_file({{"when", ""}});
  expect_load_error(parse_text(when), when, "/rules/0", kRuleStart, "missing \"when\"");
}

TEST_CASE("rule loader: a fallback rule is never sure: its confidence and support stay at or below the cap") {
  const std::string sure = rule_file({{"role", R"("fallback")"}, {"confidence", "0.6"},
                                      {"support", R"([{"if": {"fact": "death.signal", "eq": 9}, "weight": 0.1, "says": "x"}])"}});
  expect_load_error(parse_text(sure), sure, "/rules/0/confidence", "0.6", "add up to at most 0.65");
  const RuleSet fine = parse_text(rule_file({{"role", R"("fallback")"}, {"confidence", "0.5"}}));
  CHECK(fine.ok());
  REQUIRE(fine.rules.size() == 1);
  CHECK(fine.rules[0].role == RuleRole::fallback);
  const std::string unknown_role = rule_file({{"role", R"("backup")"}});
  expect_load_error(parse_text(unknown_role), unknown_role, "/rules/0/role", "\"backup\"", "\"fallback\"");
}
