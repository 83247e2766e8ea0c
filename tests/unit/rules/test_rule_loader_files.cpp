#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "expect_load_error.h"
#include "rule_text.h"

using namespace ftdiag::rules;
using namespace ftdiag::rules::testing;

TEST_CASE("rule loader: a valid rule file loads every part of the rule") {
  const std::string text = R"(// comments are allowed
{
  "$comment": "top-level comments too",
  "rules": [
    {
      "id": "oom-test",
      "cause": "container-oom",
      "role": "primary",
      "title": "OOM at the limit",
      "confidence": 0.6,
      "when": {"all": [{"fact": "death.signal", "eq": 9}, {"fact": "cgroup.limit_bytes", "exists": true}]},
      "support": [{"if": {"fact": "cgroup.oom_kill", "gt": 0}, "weight": 0.2, "says": "{cgroup.oom_kill} kills"}],
      "against": [{"if": {"fact": "cgroup.peak_ratio", "lt": 0.8}, "weight": 0.3, "says": "peak only {cgroup.peak_ratio}"}],
      "scope": [{"if": {"fact": "cgroup.limit_bytes", "exists": true}, "scope": "cgroup"}],
      "summary": "peak {cgroup.peak_bytes} of {cgroup.limit_bytes}",
      "remediation": ["raise the limit above {cgroup.peak_bytes}"],
      "references": ["https://www.kernel.org/doc/Documentation/cgroup-v2.txt"]
    },
    {
      "id": "teardown-test",
      "cause": "external-kill",
      "role": "consequence",
      "confidence": 0.9,
      "when": {"fact": "deaths.after_incident", "gte": 1},
      "summary": "teardown",
      "remediation": ["nothing"]
    }
  ]
})";
  const RuleSet set = parse_text(text);
  INFO((set.errors.empty() ? std::string() : set.errors.front().describe()));
  REQUIRE(set.ok());
  REQUIRE(set.rules.size() == 2);
  const Rule& r = set.rules[0];
  CHECK(r.id == "oom-test");
  CHECK(r.cause == "container-oom");
  CHECK(r.role == RuleRole::primary);
  CHECK(r.title == "OOM at the limit");
  CHECK(r.confidence == doctest::Approx(0.6));
  CHECK(describe(r.when) == "death.signal = 9 and cgroup.limit_bytes is known");
  REQUIRE(r.support.size() == 1);
  CHECK(r.support[0].weight == doctest::Approx(0.2));
  CHECK(r.support[0].says == "{cgroup.oom_kill} kills");
  REQUIRE(r.against.size() == 1);
  CHECK(describe(r.against[0].condition) == "cgroup.peak_ratio < 0.8");
  REQUIRE(r.scope.size() == 1);
  CHECK(r.scope[0].scope == "cgroup");
  CHECK(r.summary == "peak {cgroup.peak_bytes} of {cgroup.limit_bytes}");
  CHECK(r.remediation == std::vector<std::string>{"raise the limit above {cgroup.peak_bytes}"});
  CHECK(r.references.size() == 1);
  CHECK(r.source == "rules/test.json");
  CHECK(set.rules[1].role == RuleRole::consequence);
  CHECK(set.rules[1].title == "teardown-test");  // the id when there is no title
}

TEST_CASE("rule loader: malformed JSON is reported at its line and column") {
  const std::string text = "{\n  \"rules\": [\n    {\"id\": }\n  ]\n}\n";
  const RuleSet set = parse_text(text);
  REQUIRE(set.errors.size() == 1);
  const LoadError& e = set.errors[0];
  CHECK(e.file == "rules/test.json");
  CHECK(e.position.line == 3);
  CHECK(e.position.column == 12);  // the '}' where a value should be
  CHECK(e.message.find("not valid JSON") != std::string::npos);
  CHECK(set.rules.empty());
  CHECK(e.describe().rfind("rules/test.json:3:12: not valid JSON", 0) == 0);
}

TEST_CASE("rule loader: truncated and empty files are refused, not crashed on") {
  for (const std::string& text : {std::string("{\"rules\": ["), std::string(""), std::string("/* only a comment */")}) {
    CAPTURE(text);
    const RuleSet set = parse_text(text);
    REQUIRE(set.errors.size() == 1);
    CHECK(set.errors[0].message.find("not valid JSON") != std::string::npos);
    CHECK(set.rules.empty());
  }
}

TEST_CASE("rule loader: a file that is not an object with a rules array") {
  for (const std::string& text : {std::string("[1, 2]"), std::string("{\"rules\": {}}"), std::string("{\"rule\": []}")}) {
    CAPTURE(text);
    const RuleSet set = parse_text(text);
    REQUIRE(set.errors.size() == 1);
    CHECK(set.errors[0].pointer.empty());
    CHECK(set.errors[0].position.line == 1);
    CHECK(set.errors[0].position.column == 1);
    CHECK(set.errors[0].message.find("{\"rules\": [ ... ]}") != std::string::npos);
  }
}

TEST_CASE("rule loader: an unknown top-level key is an error at that key") {
  const std::string text = "{\n  \"rules\": [],\n  \"rulez\": [1]\n}\n";
  const RuleSet set = parse_text(text);
  REQUIRE(set.errors.size() == 1);
  CHECK(set.errors[0].pointer == "/rulez");
  CHECK(set.errors[0].position.line == 3);
  CHECK(set.errors[0].position.column == 12);
  CHECK(set.errors[0].message == "unknown key \"rulez\"");
}

TEST_CASE("rule loader: a rule with errors is not added, its valid neighbours are") {
  const std::string text = R"({"rules": [
  {"id": "bad", "cause": "no-such-cause", "confidence": 0.5, "when": {"fact": "death.signal", "eq": 9},
   "summary": "s", "remediation": ["r"]},
  {"id": "good", "cause": "external-kill", "confidence": 0.5, "when": {"fact": "death.signal", "eq": 9},
   "summary": "s", "remediation": ["r"]}
]})";
  const RuleSet set = parse_text(text);
  REQUIRE(set.errors.size() == 1);
  CHECK(set.errors[0].pointer == "/rules/0/cause");
  REQUIRE(set.rules.size() == 1);
  CHECK(set.rules[0].id == "good");
}

TEST_CASE("rule loader: the error text names file, line:column and pointer") {
  LoadError e{"rules/oom.json", {14, 9}, "/rules/0/when/fact", "unknown fact \"cgroup.peek\""};
  CHECK(e.describe() == "rules/oom.json:14:9 (/rules/0/when/fact): unknown fact \"cgroup.peek\"");
  e.pointer.clear();
  CHECK(e.describe() == "rules/oom.json:14:9: unknown fact \"cgroup.peek\"");
}

TEST_CASE("rule loader: duplicate rule ids across two files are an error") {
  RuleSet base = parse_text(rule_file(), "rules/a.json");
  RuleSet more = parse_text(rule_file({{"confidence", "0.9"}}), "rules/b.json");
  REQUIRE(base.ok());
  REQUIRE(more.ok());
  merge_rules(base, std::move(more));
  REQUIRE(base.errors.size() == 1);
  CHECK(base.errors[0].file == "rules/b.json");
  CHECK(base.errors[0].message.find("\"test-rule\"") != std::string::npos);
  CHECK(base.errors[0].message.find("rules/a.json") != std::string::npos);
  REQUIRE(base.rules.size() == 1);
  CHECK(base.rules[0].source == "rules/a.json");
  CHECK(base.rules[0].confidence == doctest::Approx(0.6));
}

// Like every other load error, a duplicate names where it is: the id of the
// second definition. (merge_rules only knows the file: line:column and
// pointer are left at 1:1 and empty.)
TEST_CASE("rule loader: a duplicate id is reported at the second definition's id") {
  const std::string second = rule_file({{"confidence", "0.9"}});
  RuleSet base = parse_text(rule_file(), "rules/a.json");
  merge_rules(base, parse_text(second, "rules/test.json"));
  REQUIRE(base.errors.size() == 1);
  CHECK(base.errors[0].pointer == "/rules/0/id");
  const TextPosition want = position_of(second, "\"test-rule\"");
  CHECK(base.errors[0].position.line == want.line);
  CHECK(base.errors[0].position.column == want.column);
}

TEST_CASE("rule loader: the project's rules directory loads without errors") {
  const RuleSet set = load_rules(project_rules_dir());
  std::string errors;
  for (const auto& e : set.errors) errors += e.describe() + "\n";
  CHECK_MESSAGE(set.ok(), errors);
  // Every rule comes from a file of rules/ and names itself in messages by it.
  REQUIRE(set.rules.size() >= 10);
  for (const auto& r : set.rules) {
    CAPTURE(r.id);
    CHECK(r.source.rfind("rules/", 0) == 0);
    CHECK(std::filesystem::is_regular_file(project_rules_dir() / r.source.substr(6)));
  }
  // References between rules resolve.
  CHECK(check_refinements(set.rules).empty());
}

TEST_CASE("rule loader: a missing file is an error naming it") {
  const RuleSet set = load_rules(project_rules_dir() / "no-such-file.json");
  REQUIRE(set.errors.size() == 1);
  CHECK(set.errors[0].file.find("no-such-file.json") != std::string::npos);
  CHECK(set.rules.empty());
}
