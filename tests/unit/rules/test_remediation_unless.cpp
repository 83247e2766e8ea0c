#include <doctest/doctest.h>

#include <string>

#include "rule_text.h"
#include "rules/engine.h"

using namespace ftdiag;
using namespace ftdiag::rules;
using namespace ftdiag::rules::testing;

namespace {

constexpr const char* kRule = R"({"rules": [{
  "id": "save-oom", "cause": "host-oom-checkpoint-save", "confidence": 0.8,
  "when": {"fact": "death.signal", "eq": 9},
  "summary": "killed",
  "remediation": [
    {"step": "Use ZeRO-3.", "unless": {"fact": "job.deepspeed", "eq": false}},
    "Add RAM.",
    {"step": "Fewer ranks per node.", "unless": {"fact": "job.ranks", "lte": 1}}
  ]
}]})";

}  // namespace

TEST_CASE("remediation: a step with `unless` is left out only when its condition holds") {
  const RuleSet set = parse_text(kRule);
  INFO((set.errors.empty() ? std::string() : set.errors.front().describe()));
  REQUIRE(set.ok());
  REQUIRE(set.rules.front().remediation.size() == 3);

  SUBCASE("a single process without DeepSpeed: neither ZeRO nor fewer ranks") {
    const auto j = judge(set.rules, facts_of({{"death.signal", std::int64_t{9}}, {"job.deepspeed", false}, {"job.ranks", std::int64_t{1}}}));
    REQUIRE(j.findings.size() == 1);
    CHECK(j.findings[0].remediation == std::vector<std::string>{"Add RAM."});
  }
  SUBCASE("eight DeepSpeed ranks: every step") {
    const auto j = judge(set.rules, facts_of({{"death.signal", std::int64_t{9}}, {"job.deepspeed", true}, {"job.ranks", std::int64_t{8}}}));
    REQUIRE(j.findings.size() == 1);
    CHECK(j.findings[0].remediation.size() == 3);
  }
  SUBCASE("a log alone, the job's shape unknown: the advice is kept") {
    const auto j = judge(set.rules, facts_of({{"death.signal", std::int64_t{9}}}));
    REQUIRE(j.findings.size() == 1);
    CHECK(j.findings[0].remediation.size() == 3);
  }
}

TEST_CASE("remediation: a malformed conditional step is a load error, at its place") {
  const auto bad = std::string(kRule).replace(std::string(kRule).find("\"unless\": {\"fact\": \"job.deepspeed\""), 9, "\"unles\":");
  const RuleSet set = parse_text(bad);
  CHECK_FALSE(set.ok());
  const RuleSet unknown_fact = parse_text(std::string(kRule).replace(std::string(kRule).find("job.ranks"), 9, "job.rankz"));
  CHECK_FALSE(unknown_fact.ok());
}
