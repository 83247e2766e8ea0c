// A comparison whose value is another fact: {"fact": A, OP: {"fact": B}}.
// Loaded through the rule loader (so the types are checked as a rule file
// would be), evaluated on small fact sets.
#include <doctest/doctest.h>

#include <string>

#include "expect_load_error.h"
#include "rule_text.h"
#include "rules/condition.h"

using namespace ftdiag;
using namespace ftdiag::rules;
using namespace ftdiag::rules::testing;

namespace {


// The `when` of a rule that must load.
Condition when_of(const std::string& when) {
  const auto l = with_when(when);
  INFO((l.set.errors.empty() ? std::string() : l.set.errors.front().describe()));
  REQUIRE(l.set.ok());
  REQUIRE(l.set.rules.size() == 1);
  return l.set.rules[0].when;
}

Truth eval(const Condition& c, std::vector<std::pair<std::string, facts::FactValue>> values) {
  return evaluate(c, facts_of(std::move(values)));
}

std::string s(const char* text) { return std::string(text); }

}  // namespace

TEST_CASE("fact comparisons: integers compare with integers") {
  const Condition gt = when_of(R"({"fact": "torch.cuda_major", "gt": {"fact": "gpu.driver_cuda_major"}})");
  CHECK(gt.other_fact == "gpu.driver_cuda_major");
  CHECK(gt.operands.empty());
  CHECK_FALSE(gt.version_order);
  CHECK(eval(gt, {{"torch.cuda_major", std::int64_t{13}}, {"gpu.driver_cuda_major", std::int64_t{12}}}) == Truth::yes);
  CHECK(eval(gt, {{"torch.cuda_major", std::int64_t{12}}, {"gpu.driver_cuda_major", std::int64_t{12}}}) == Truth::no);
  CHECK(eval(gt, {{"torch.cuda_major", std::int64_t{11}}, {"gpu.driver_cuda_major", std::int64_t{12}}}) == Truth::no);

  const Condition eq = when_of(R"({"fact": "torch.cuda_major", "eq": {"fact": "gpu.driver_cuda_major"}})");
  CHECK(eval(eq, {{"torch.cuda_major", std::int64_t{12}}, {"gpu.driver_cuda_major", std::int64_t{12}}}) == Truth::yes);
  CHECK(eval(eq, {{"torch.cuda_major", std::int64_t{13}}, {"gpu.driver_cuda_major", std::int64_t{12}}}) == Truth::no);

  const Condition ne = when_of(R"({"fact": "ld.library_path_cudart_major", "ne": {"fact": "torch.cuda_major"}})");
  CHECK(eval(ne, {{"ld.library_path_cudart_major", std::int64_t{11}}, {"torch.cuda_major", std::int64_t{12}}}) == Truth::yes);
  CHECK(eval(ne, {{"ld.library_path_cudart_major", std::int64_t{12}}, {"torch.cuda_major", std::int64_t{12}}}) == Truth::no);
}

TEST_CASE("fact comparisons: an integer fact and a number fact compare as numbers") {
  // death.rss_bytes is an integer, cgroup.peak_ratio a number: the loader
  // lets numbers of either kind meet, as it does for constants.
  const Condition lte = when_of(R"({"fact": "death.rss_bytes", "lte": {"fact": "cgroup.peak_ratio"}})");
  CHECK(eval(lte, {{"death.rss_bytes", std::int64_t{1}}, {"cgroup.peak_ratio", 1.0}}) == Truth::yes);
  CHECK(eval(lte, {{"death.rss_bytes", std::int64_t{2}}, {"cgroup.peak_ratio", 1.5}}) == Truth::no);
  const Condition eq = when_of(R"({"fact": "cgroup.peak_ratio", "eq": {"fact": "death.rss_bytes"}})");
  CHECK(eval(eq, {{"death.rss_bytes", std::int64_t{1}}, {"cgroup.peak_ratio", 1.0}}) == Truth::yes);
}

TEST_CASE("fact comparisons: version facts order as versions") {
  const Condition gt = when_of(R"({"fact": "torch.cuda_version", "gt": {"fact": "gpu.driver_cuda_version"}})");
  CHECK(gt.version_order);
  CHECK(eval(gt, {{"torch.cuda_version", s("12.8")}, {"gpu.driver_cuda_version", s("12.1")}}) == Truth::yes);
  CHECK(eval(gt, {{"torch.cuda_version", s("12.10")}, {"gpu.driver_cuda_version", s("12.9")}}) == Truth::yes);  // text order says no
  CHECK(eval(gt, {{"torch.cuda_version", s("12.1")}, {"gpu.driver_cuda_version", s("12.1")}}) == Truth::no);
  CHECK(eval(gt, {{"torch.cuda_version", s("12.4")}, {"gpu.driver_cuda_version", s("12.8")}}) == Truth::no);
  CHECK(eval(gt, {{"torch.cuda_version", s("13.0")}, {"gpu.driver_cuda_version", s("12.8")}}) == Truth::yes);

  const Condition lt = when_of(R"({"fact": "gpu.driver_version", "lt": {"fact": "cuda.build_min_driver"}})");
  CHECK(eval(lt, {{"gpu.driver_version", s("535.104.05")}, {"cuda.build_min_driver", s("570.26")}}) == Truth::yes);
  CHECK(eval(lt, {{"gpu.driver_version", s("570.124.06")}, {"cuda.build_min_driver", s("570.26")}}) == Truth::no);
  CHECK(eval(lt, {{"gpu.driver_version", s("570.26")}, {"cuda.build_min_driver", s("570.26")}}) == Truth::no);

  const Condition gte = when_of(R"({"fact": "gpu.driver_version", "gte": {"fact": "cuda.build_min_driver"}})");
  CHECK(eval(gte, {{"gpu.driver_version", s("570.26")}, {"cuda.build_min_driver", s("570.26")}}) == Truth::yes);

  // eq and ne on versions: "12" is "12.0", a local tag is no difference.
  const Condition eq = when_of(R"({"fact": "deepspeed.built_torch_release", "eq": {"fact": "torch.release"}})");
  CHECK(eval(eq, {{"deepspeed.built_torch_release", s("2.7")}, {"torch.release", s("2.7.0")}}) == Truth::yes);
  CHECK(eval(eq, {{"deepspeed.built_torch_release", s("2.10")}, {"torch.release", s("2.1")}}) == Truth::no);
  const Condition ne = when_of(R"({"fact": "deepspeed.built_torch_release", "ne": {"fact": "torch.release"}})");
  CHECK(eval(ne, {{"deepspeed.built_torch_release", s("2.5")}, {"torch.release", s("2.7")}}) == Truth::yes);
  CHECK(eval(ne, {{"deepspeed.built_torch_release", s("2.7")}, {"torch.release", s("2.7.0+cu128")}}) == Truth::no);
}

TEST_CASE("fact comparisons: plain strings and booleans compare for equality") {
  const Condition eq = when_of(R"({"fact": "crash.module", "eq": {"fact": "fault.object"}})");
  CHECK_FALSE(eq.version_order);
  CHECK(eval(eq, {{"crash.module", s("libtorch_cuda.so")}, {"fault.object", s("libtorch_cuda.so")}}) == Truth::yes);
  CHECK(eval(eq, {{"crash.module", s("libtorch_cuda.so")}, {"fault.object", s("libc.so.6")}}) == Truth::no);
  CHECK(eval(eq, {{"crash.module", s("libtorch_cuda.so")}, {"fault.object", s("LIBTORCH_CUDA.SO")}}) == Truth::no);  // exact text

  const Condition ne = when_of(R"({"fact": "crash.module", "ne": {"fact": "fault.object"}})");
  CHECK(eval(ne, {{"crash.module", s("libtorch_cuda.so")}, {"fault.object", s("libc.so.6")}}) == Truth::yes);
  CHECK(eval(ne, {{"crash.module", s("libc.so.6")}, {"fault.object", s("libc.so.6")}}) == Truth::no);

  const Condition booleans = when_of(R"({"fact": "job.failed", "eq": {"fact": "torch.cpu_only"}})");
  CHECK(eval(booleans, {{"job.failed", true}, {"torch.cpu_only", true}}) == Truth::yes);
  CHECK(eval(booleans, {{"job.failed", true}, {"torch.cpu_only", false}}) == Truth::no);
}

TEST_CASE("fact comparisons: facts of types that do not compare are refused at load") {
  SUBCASE("an integer with a version") {
    const auto l = with_when(R"({"fact": "torch.cuda_major", "gt": {"fact": "torch.cuda_version"}})");
    expect_load_error(l.set, l.text, "/rules/0/when/gt/fact", "\"torch.cuda_version\"", "cannot compare \"torch.cuda_major\" (integer");
    const LoadError* e = find_error(l.set, "/rules/0/when/gt/fact");
    REQUIRE(e != nullptr);
    CHECK_MESSAGE(e->message.find("with \"torch.cuda_version\" (string version)") != std::string::npos, e->message);
  }
  SUBCASE("a version with a plain string, ordered") {
    const auto l = with_when(R"({"fact": "torch.cuda_version", "lt": {"fact": "crash.module"}})");
    expect_load_error(l.set, l.text, "/rules/0/when/lt/fact", "\"crash.module\"", "cannot compare \"torch.cuda_version\"");
  }
  SUBCASE("a string with an integer, for equality") {
    const auto l = with_when(R"({"fact": "crash.module", "eq": {"fact": "death.signal"}})");
    expect_load_error(l.set, l.text, "/rules/0/when/eq/fact", "\"death.signal\"", "with \"death.signal\" (integer signal)");
  }
  SUBCASE("a boolean with a number") {
    const auto l = with_when(R"({"fact": "job.failed", "ne": {"fact": "cgroup.peak_ratio"}})");
    expect_load_error(l.set, l.text, "/rules/0/when/ne/fact", "\"cgroup.peak_ratio\"", "cannot compare \"job.failed\" (boolean");
  }
  SUBCASE("order on plain strings") {
    const auto l = with_when(R"({"fact": "crash.module", "gt": {"fact": "fault.object"}})");
    expect_load_error(l.set, l.text, "/rules/0/when/gt", "{\"fact\": \"fault.object\"}", "needs a number or a version");
  }
}

TEST_CASE("fact comparisons: the other fact must be known to the registry, and be the only key") {
  SUBCASE("unknown other fact") {
    const auto l = with_when(R"({"fact": "torch.cuda_version", "gt": {"fact": "gpu.driver_cuda_verison"}})");
    expect_load_error(l.set, l.text, "/rules/0/when/gt/fact", "\"gpu.driver_cuda_verison\"", "unknown fact \"gpu.driver_cuda_verison\"");
  }
  SUBCASE("another key beside fact") {
    const auto l = with_when(R"({"fact": "torch.cuda_major", "gt": {"fact": "gpu.driver_cuda_major", "plus": 1}})");
    expect_load_error(l.set, l.text, "/rules/0/when/gt", "{\"fact\": \"gpu.driver_cuda_major\"", "a constant or {\"fact\": NAME}");
  }
  SUBCASE("an object without fact") {
    const auto l = with_when(R"({"fact": "torch.cuda_major", "gt": {"value": 12}})");
    expect_load_error(l.set, l.text, "/rules/0/when/gt", "{\"value\"", "a constant or {\"fact\": NAME}");
  }
  SUBCASE("the other fact's name is not a string") {
    const auto l = with_when(R"({"fact": "torch.cuda_major", "gt": {"fact": 12}})");
    expect_load_error(l.set, l.text, "/rules/0/when/gt", "{\"fact\": 12}", "a constant or {\"fact\": NAME}");
  }
}

TEST_CASE("fact comparisons: a missing fact on either side is unknown and listed in the trace") {
  const Condition gt = when_of(R"({"fact": "torch.cuda_version", "gt": {"fact": "gpu.driver_cuda_version"}})");
  SUBCASE("the other fact is missing") {
    EvaluationTrace trace;
    CHECK(evaluate(gt, facts_of({{"torch.cuda_version", s("12.8")}}), &trace) == Truth::unknown);
    CHECK(trace.missing == std::set<std::string>{"gpu.driver_cuda_version"});
    CHECK(trace.used.empty());
  }
  SUBCASE("this fact is missing") {
    EvaluationTrace trace;
    CHECK(evaluate(gt, facts_of({{"gpu.driver_cuda_version", s("12.1")}}), &trace) == Truth::unknown);
    CHECK(trace.missing.count("torch.cuda_version") == 1);
    CHECK(trace.used.empty());
  }
  SUBCASE("both known: both are evidence when it holds") {
    EvaluationTrace trace;
    CHECK(evaluate(gt, facts_of({{"torch.cuda_version", s("12.8")}, {"gpu.driver_cuda_version", s("12.1")}}), &trace) == Truth::yes);
    CHECK(trace.missing.empty());
    CHECK(trace.used == std::set<std::string>{"torch.cuda_version", "gpu.driver_cuda_version"});
  }
  SUBCASE("unknown stays unknown under not, and all of it is unknown") {
    const Condition c = when_of(
        R"({"all": [{"fact": "death.signal", "eq": 11}, {"not": {"fact": "torch.cuda_version", "gt": {"fact": "gpu.driver_cuda_version"}}}]})");
    EvaluationTrace trace;
    CHECK(evaluate(c, facts_of({{"death.signal", std::int64_t{11}}, {"torch.cuda_version", s("12.8")}}), &trace) == Truth::unknown);
    CHECK(trace.missing == std::set<std::string>{"gpu.driver_cuda_version"});
  }
}

TEST_CASE("fact comparisons: collect_facts names both facts") {
  const Condition gt = when_of(R"({"fact": "torch.cuda_version", "gt": {"fact": "gpu.driver_cuda_version"}})");
  std::set<std::string> named;
  collect_facts(gt, named);
  CHECK(named == std::set<std::string>{"torch.cuda_version", "gpu.driver_cuda_version"});
}

TEST_CASE("fact comparisons: describe() names the other fact") {
  CHECK(describe(when_of(R"({"fact": "torch.cuda_version", "gt": {"fact": "gpu.driver_cuda_version"}})")) ==
        "torch.cuda_version > gpu.driver_cuda_version");
  CHECK(describe(when_of(R"({"fact": "gpu.driver_version", "lte": {"fact": "cuda.build_min_driver"}})")) ==
        "gpu.driver_version <= cuda.build_min_driver");
  CHECK(describe(when_of(R"({"fact": "torch.cuda_major", "ne": {"fact": "gpu.driver_cuda_major"}})")) ==
        "torch.cuda_major != gpu.driver_cuda_major");
  CHECK(describe(when_of(R"({"all": [{"fact": "torch.cuda_major", "eq": {"fact": "gpu.driver_cuda_major"}},
                                     {"fact": "torch.cuda_version", "gt": {"fact": "gpu.driver_cuda_version"}}]})")) ==
        "torch.cuda_major = gpu.driver_cuda_major and torch.cuda_version > gpu.driver_cuda_version");
}

TEST_CASE("fact comparisons: a constant version operand must read as a version") {
  const Condition c = when_of(R"({"fact": "gpu.driver_version", "lt": "525.60.13"})");
  CHECK(c.version_order);
  CHECK(c.other_fact.empty());
  CHECK(evaluate(c, facts_of({{"gpu.driver_version", s("515.65.01")}})) == Truth::yes);
  CHECK(evaluate(c, facts_of({{"gpu.driver_version", s("535.104.05")}})) == Truth::no);
  const auto l = with_when(R"({"fact": "gpu.driver_version", "lt": "latest"})");
  expect_load_error(l.set, l.text, "/rules/0/when/lt", "\"latest\"", "does not read as one");
}
