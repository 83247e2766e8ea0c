#include <doctest/doctest.h>

#include <string>

#include "rule_text.h"
#include "rules/engine.h"

using namespace ftdiag;
using namespace ftdiag::rules;
using ftdiag::rules::testing::facts_of;

namespace {

Condition cmp(std::string fact, Condition::Op op, facts::FactValue operand) {
  Condition c;
  c.kind = Condition::Kind::compare;
  c.fact = std::move(fact);
  c.op = op;
  c.operands = {std::move(operand)};
  return c;
}

Condition all(std::vector<Condition> children) {
  Condition c;
  c.kind = Condition::Kind::all;
  c.children = std::move(children);
  return c;
}

const Condition kSigkill = cmp("death.signal", Condition::Op::eq, std::int64_t{9});

Rule rule(std::string id, std::string cause, double confidence, Condition when) {
  Rule r;
  r.id = std::move(id);
  r.cause = std::move(cause);
  r.confidence = confidence;
  r.when = std::move(when);
  r.summary = "killed by {death.signal}";
  r.remediation = {"look at {cgroup.limit_bytes}"};
  return r;
}

const facts::FactSet kFacts = facts_of({{"death.signal", std::int64_t{9}},
                                        {"cgroup.oom_kill", std::int64_t{0}},
                                        {"cgroup.peak_ratio", 0.97},
                                        {"deaths.after_incident", std::int64_t{3}}});

}  // namespace

TEST_CASE("engine: findings are ranked by confidence and the top one is the verdict") {
  const Judgement j = judge({rule("low", "container-oom", 0.6, kSigkill), rule("high", "external-kill", 0.8, kSigkill)}, kFacts);
  REQUIRE(j.findings.size() == 2);
  CHECK(j.findings[0].rule == "high");
  CHECK(j.findings[1].rule == "low");
  CHECK(j.verdict.cause == "external-kill");
  CHECK(j.verdict.rule == "high");
  CHECK(j.verdict.confidence == doctest::Approx(0.8));
  CHECK(j.verdict.summary == "killed by SIGKILL (9)");
  CHECK(j.verdict.missing_facts.empty());
  CHECK(j.findings[0].remediation == std::vector<std::string>{"look at unknown"});
}

TEST_CASE("engine: support and against move the confidence, clamped to 0..1") {
  Rule r = rule("r", "container-oom", 0.7, kSigkill);
  r.support.push_back({cmp("cgroup.peak_ratio", Condition::Op::gte, 0.95), 0.5, "peak {cgroup.peak_ratio}"});
  r.support.push_back({cmp("cgroup.oom_kill", Condition::Op::gt, std::int64_t{0}), 0.2, "never holds"});
  const Judgement j = judge({r}, kFacts);
  REQUIRE(j.findings.size() == 1);
  CHECK(j.findings[0].confidence == doctest::Approx(1.0));
  REQUIRE(j.findings[0].supporting.size() == 1);
  CHECK(j.findings[0].supporting[0].says == "peak 97%");
  CHECK(j.findings[0].supporting[0].weight == doctest::Approx(0.5));
  REQUIRE(j.findings[0].supporting[0].facts.size() == 1);
  CHECK(j.findings[0].supporting[0].facts[0].fact == "cgroup.peak_ratio");
}

TEST_CASE("engine: evidence against lowers a finding below the threshold: verdict unknown, closest candidate named") {
  Rule r = rule("oom-rule", "container-oom", 0.6, kSigkill);
  r.against.push_back({cmp("cgroup.oom_kill", Condition::Op::eq, std::int64_t{0}), 0.35, "no OOM kill counted"});
  const Judgement j = judge({r}, kFacts);
  REQUIRE(j.findings.size() == 1);
  CHECK(j.findings[0].confidence == doctest::Approx(0.25));
  CHECK(j.findings[0].confidence < kVerdictThreshold);
  REQUIRE(j.findings[0].contradicting.size() == 1);
  CHECK(j.findings[0].contradicting[0].says == "no OOM kill counted");
  CHECK(j.verdict.cause == "unknown");
  CHECK(j.verdict.rule.empty());
  CHECK(j.verdict.confidence == 0);
  CHECK(j.verdict.summary.find("container-oom") != std::string::npos);
  CHECK(j.verdict.summary.find("25%") != std::string::npos);
}

TEST_CASE("engine: an unknown verdict lists the facts that were missing, and the rules that missed them, not in its summary") {
  const Rule r = rule("needs-limit", "container-oom", 0.9,
                      all({kSigkill, cmp("cgroup.limit_bytes", Condition::Op::gt, std::int64_t{0})}));
  const Judgement j = judge({r}, kFacts);
  CHECK(j.findings.empty());
  CHECK(j.verdict.cause == "unknown");
  CHECK(j.verdict.missing_facts == std::vector<std::string>{"cgroup.limit_bytes"});
  REQUIRE(j.verdict.undecided.size() == 1);
  CHECK(j.verdict.undecided[0].rule == "needs-limit");
  CHECK(j.verdict.undecided[0].cause == "container-oom");
  CHECK(j.verdict.undecided[0].missing_facts == std::vector<std::string>{"cgroup.limit_bytes"});
  // Fact names are for --facts and the JSON; the summary is in words.
  CHECK(j.verdict.summary.find("cgroup.limit_bytes") == std::string::npos);
}

TEST_CASE("engine: no rule matching and nothing missing says so") {
  const Judgement j = judge({rule("r", "external-kill", 0.9, cmp("death.signal", Condition::Op::eq, std::int64_t{15}))}, kFacts);
  CHECK(j.findings.empty());
  CHECK(j.verdict.cause == "unknown");
  CHECK(j.verdict.missing_facts.empty());
  CHECK(j.verdict.summary == "A process of the job was killed by SIGKILL (9); no rule decides why.");
}

TEST_CASE("engine: an undecided death by a signal says what died, and the error reported before it") {
  auto facts = facts_of({{"death.signal", std::int64_t{6}},
                         {"death.command", std::string("python3 train.py")},
                         {"death.rank", std::int64_t{0}},
                         {"console.exception_before_death", std::string("RuntimeError: loss is NaN")}});
  const Judgement j = judge({rule("r", "external-kill", 0.9, cmp("death.signal", Condition::Op::eq, std::int64_t{15}))}, facts);
  CHECK(j.verdict.cause == "unknown");
  CHECK(j.verdict.summary.starts_with("python3 train.py was killed by SIGABRT (6) (rank 0) after the job reported `RuntimeError: loss is NaN`"));
  CHECK(j.verdict.summary.ends_with("; no rule decides why."));
}

TEST_CASE("engine: a job that exited with an error of its own says so") {
  auto facts = facts_of({{"death.exit_code", std::int64_t{1}},
                         {"death.is_job", true},
                         {"console.exception", std::string("RuntimeError: loss is NaN")}});
  const Judgement j = judge({rule("r", "external-kill", 0.9, cmp("death.signal", Condition::Op::eq, std::int64_t{15}))}, facts);
  CHECK(j.verdict.summary.starts_with("The job exited with code 1 after `RuntimeError: loss is NaN`: an error it reported itself"));
}

TEST_CASE("engine: a consequence follows the verdict's rule and never becomes the verdict") {
  Rule teardown = rule("teardown", "external-kill", 0.95, cmp("deaths.after_incident", Condition::Op::gte, std::int64_t{1}));
  teardown.role = RuleRole::consequence;
  SUBCASE("with a primary verdict") {
    const Judgement j = judge({teardown, rule("oom", "container-oom", 0.6, kSigkill)}, kFacts);
    REQUIRE(j.findings.size() == 2);
    CHECK(j.findings[0].rule == "oom");  // primary first, though less confident
    CHECK(j.findings[1].rule == "teardown");
    CHECK(j.findings[1].consequence);
    CHECK(j.findings[1].consequence_of == std::optional<std::string>("oom"));
    CHECK_FALSE(j.findings[0].consequence_of);
    CHECK(j.verdict.cause == "container-oom");
  }
  SUBCASE("alone") {
    const Judgement j = judge({teardown}, kFacts);
    REQUIRE(j.findings.size() == 1);
    CHECK(j.verdict.cause == "unknown");
    CHECK(j.verdict.rule.empty());
    CHECK_FALSE(j.findings[0].consequence_of);
  }
}

TEST_CASE("engine: the scope is the first choice that holds") {
  Rule r = rule("r", "container-oom", 0.8, kSigkill);
  r.scope.push_back({cmp("cgroup.limit_bytes", Condition::Op::gt, std::int64_t{0}), "userspace"});  // unknown
  r.scope.push_back({cmp("cgroup.peak_ratio", Condition::Op::lt, 0.5), "node"});                    // no
  r.scope.push_back({cmp("cgroup.peak_ratio", Condition::Op::gte, 0.95), "cgroup"});               // yes
  r.scope.push_back({kSigkill, "node"});                                                            // also yes
  const Judgement j = judge({r}, kFacts);
  REQUIRE(j.findings.size() == 1);
  CHECK(j.findings[0].scope == std::optional<std::string>("cgroup"));
  CHECK(j.verdict.scope == std::optional<std::string>("cgroup"));
  r.scope.resize(2);
  CHECK_FALSE(judge({r}, kFacts).findings.at(0).scope);
}

TEST_CASE("engine: evidence cites the facts that held with their JSON pointers and units") {
  facts::FactSet facts;
  facts.set("death.signal", std::int64_t{9}, "/hosts/0/runs/0/processes/2/death/status");
  facts.set("cgroup.peak_ratio", 0.97, "/hosts/0/runs/0/memory/cgroup_peak_bytes");
  const Rule r = rule("r", "container-oom", 0.8, all({kSigkill, cmp("cgroup.peak_ratio", Condition::Op::gte, 0.9)}));
  const Judgement j = judge({r}, facts);
  REQUIRE(j.findings.size() == 1);
  const auto& evidence = j.findings[0].evidence;
  REQUIRE(evidence.size() == 2);
  CHECK(evidence[0].fact == "cgroup.peak_ratio");
  CHECK(evidence[0].pointer == "/hosts/0/runs/0/memory/cgroup_peak_bytes");
  CHECK(evidence[0].display == "97%");
  CHECK(evidence[1].fact == "death.signal");
  CHECK(evidence[1].pointer == "/hosts/0/runs/0/processes/2/death/status");
  CHECK(evidence[1].display == "SIGKILL (9)");
  CHECK(std::get<std::int64_t>(evidence[1].value) == 9);
}

TEST_CASE("engine: a fallback finding is the verdict only when no other primary finding reaches the threshold") {
  Rule words = rule("words", "host-oom", 0.55, kSigkill);
  words.role = RuleRole::fallback;
  // A primary finding at the threshold wins over a more confident fallback.
  const Judgement beaten = judge({words, rule("strong", "external-kill", 0.5, kSigkill)}, kFacts);
  CHECK(beaten.verdict.cause == "external-kill");
  CHECK(beaten.verdict.rule == "strong");
  REQUIRE(beaten.findings.size() == 2);
  CHECK(beaten.findings[1].rule == "words");
  // A primary finding below the threshold does not: the fallback decides, and
  // the weak primary stays listed below it.
  const Judgement decided = judge({words, rule("weak", "external-kill", 0.4, kSigkill)}, kFacts);
  CHECK(decided.verdict.cause == "host-oom");
  CHECK(decided.verdict.rule == "words");
  CHECK(decided.verdict.confidence == doctest::Approx(0.55));
  REQUIRE(decided.findings.size() == 2);
  CHECK(decided.findings[1].rule == "weak");
  // Alone, it is the verdict.
  CHECK(judge({words}, kFacts).verdict.cause == "host-oom");
}
