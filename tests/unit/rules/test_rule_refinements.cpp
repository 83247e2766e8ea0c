// "refines": a more specific rule wins over the general one it names, and the
// loader refuses references that cannot be followed.
#include <doctest/doctest.h>

#include <string>

#include "rules/engine.h"
#include "rule_text.h"

using namespace ftdiag::rules;
using namespace ftdiag::rules::testing;

namespace {

// Several rules in one file: each entry is the id and the extra keys.
RuleSet rules_with(const std::vector<std::pair<std::string, std::string>>& rules) {
  std::string text = "{\"rules\": [\n";
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const auto& [id, extra] = rules[i];
    text += (i ? ",\n" : "") + std::string(R"({"id": ")") + id +
            R"(", "cause": "container-oom", "confidence": 0.6, "when": {"fact": "death.signal", "eq": 9},)" +
            R"( "summary": "s", "remediation": ["r"])" + (extra.empty() ? "" : ", " + extra) + "}";
  }
  text += "\n]}\n";
  RuleSet set = parse_text(text);
  for (auto& error : check_refinements(set.rules)) set.errors.push_back(std::move(error));
  return set;
}

bool has_error(const RuleSet& set, const std::string& part) {
  for (const auto& e : set.errors) {
    if (e.message.find(part) != std::string::npos && e.pointer.find("/refines") != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("refinements: the specific finding wins over a more confident general one") {
  RuleSet set = rules_with({
      {"general", R"("support": [{"if": {"fact": "death.signal", "eq": 9}, "weight": 0.3, "says": "x"}])"},
      {"specific", R"("refines": ["general"])"},
  });
  REQUIRE(set.ok());
  const auto judgement = judge(set.rules, facts_of({{"death.signal", std::int64_t{9}}}));
  CHECK(judgement.verdict.rule == "specific");
  REQUIRE(judgement.findings.size() == 2);
  CHECK(judgement.findings[0].rule == "specific");
  CHECK(judgement.findings[1].rule == "general");
  CHECK(judgement.findings[1].refined_by == "specific");
  CHECK_FALSE(judgement.findings[0].refined_by);
}

TEST_CASE("refinements: a specific finding below the threshold does not take the verdict") {
  RuleSet set = rules_with({
      {"general", ""},
      {"specific", R"("refines": ["general"], "against": [{"if": {"fact": "death.signal", "eq": 9}, "weight": 0.2, "says": "x"}])"},
  });
  REQUIRE(set.ok());
  const auto judgement = judge(set.rules, facts_of({{"death.signal", std::int64_t{9}}}));
  CHECK(judgement.verdict.rule == "general");
  CHECK_FALSE(judgement.findings[0].refined_by);
}

TEST_CASE("refinements: chains end at the most specific rule") {
  RuleSet set = rules_with({{"a", ""}, {"b", R"("refines": ["a"])"}, {"c", R"("refines": ["b"])"}});
  REQUIRE(set.ok());
  CHECK(judge(set.rules, facts_of({{"death.signal", std::int64_t{9}}})).verdict.rule == "c");
}

TEST_CASE("refinements: unknown, self, consequence and cyclic references are load errors at \"refines\"") {
  CHECK(has_error(rules_with({{"a", R"("refines": ["nope"])"}}), "which is not a loaded rule"));
  CHECK(has_error(rules_with({{"a", R"("refines": ["a"])"}}), "cannot refine itself"));
  CHECK(has_error(rules_with({{"a", R"("refines": ["b"])"}, {"b", R"("refines": ["c"])"}, {"c", R"("refines": ["a"])"}}),
                  "refinements form a cycle"));
  CHECK(has_error(rules_with({{"a", R"("role": "consequence")"}, {"b", R"("refines": ["a"])"}}), "not a primary rule (a consequence)"));
  CHECK(has_error(rules_with({{"a", ""}, {"b", R"("role": "consequence", "refines": ["a"])"}}), "only a primary rule"));
  const RuleSet malformed = parse_text(rule_file({{"refines", R"("general")"}}));
  REQUIRE_FALSE(malformed.ok());
  CHECK(malformed.errors.front().message.find("non-empty array of rule ids") != std::string::npos);
  // A rule of another set (the built-in rules, for a user's file) can be refined.
  RuleSet user = parse_text(rule_file({{"refines", R"(["builtin"])"}}));
  const RuleSet builtin = rules_with({{"builtin", ""}});
  CHECK(check_refinements(user.rules, builtin.rules).empty());
}
