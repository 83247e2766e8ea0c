#include <doctest/doctest.h>

#include <string>

#include "rule_text.h"
#include "rules/explanation.h"

using namespace ftdiag;
using namespace ftdiag::rules;
using ftdiag::rules::testing::facts_of;

TEST_CASE("explanation: template_facts lists the named facts in order") {
  CHECK(template_facts("peak {cgroup.peak_bytes} of {cgroup.limit_bytes}, again {cgroup.peak_bytes}") ==
        std::vector<std::string>{"cgroup.peak_bytes", "cgroup.limit_bytes", "cgroup.peak_bytes"});
  CHECK(template_facts("no facts here").empty());
  CHECK(template_facts("").empty());
}

TEST_CASE("explanation: stray braces are plain text") {
  const std::string text = "a {} b { c } d {Upper.case} e {death.signal f } {unclosed.fact";
  CHECK(template_facts(text).empty());
  CHECK(render_template(text, facts::FactSet{}) == text);
  CHECK(template_facts("{{death.signal}}") == std::vector<std::string>{"death.signal"});
  CHECK(render_template("{{death.signal}}", facts_of({{"death.signal", std::int64_t{9}}})) == "{SIGKILL (9)}");
}

TEST_CASE("explanation: values are rendered in their units") {
  const auto facts = facts_of({
      {"cgroup.peak_bytes", std::int64_t{512} << 20},
      {"cgroup.limit_bytes", std::int64_t{512}},
      {"cgroup.peak_ratio", 0.983},
      {"phase.at_death_age", 12.34},
      {"deaths.teardown_span", 250.0},
      {"death.signal", std::int64_t{9}},
      {"job.signal", std::int64_t{11}},
      {"cgroup.oom_kill", std::int64_t{3}},
      {"memory.growth_factor", 2.5},
      {"death.is_job", true},
      {"phase.at_death", std::string("checkpoint-save")},
  });
  CHECK(render_template("{cgroup.peak_bytes} of {cgroup.limit_bytes}", facts) == "512.0 MiB of 512 B");
  CHECK(render_template("at {cgroup.peak_ratio}", facts) == "at 98%");
  CHECK(render_template("{phase.at_death_age} / {deaths.teardown_span}", facts) == "12.3 s / 4 min 10 s");
  CHECK(render_template("{death.signal}, {job.signal}", facts) == "SIGKILL (9), SIGSEGV (11)");
  CHECK(render_template("{cgroup.oom_kill} kills, {memory.growth_factor}x", facts) == "3 kills, 2.5x");
  CHECK(render_template("{death.is_job} in {phase.at_death}", facts) == "true in checkpoint-save");
}

TEST_CASE("explanation: a missing fact reads unknown") {
  facts::FactSet facts;
  facts.set_missing("cgroup.limit_bytes", Missing{MissingReason::not_present, "no memory limit"});
  CHECK(render_template("limit {cgroup.limit_bytes}, kills {cgroup.oom_kill}", facts) == "limit unknown, kills unknown");
}

TEST_CASE("explanation: an optional part shows only when its facts are known, or its alternative") {
  const auto facts = facts_of({{"death.signal", std::int64_t{9}}});
  CHECK(render_template("killed[[ by {death.signal}]][[ at {cgroup.peak_bytes}]].", facts) == "killed by SIGKILL (9).");
  CHECK(render_template("killed [[{cgroup.peak_bytes}||a process]] with [[{death.signal}||no signal]]", facts) ==
        "killed a process with SIGKILL (9)");
  CHECK(render_template("[[no facts at all]]", facts) == "no facts at all");
  CHECK(render_template("a [[ b", facts) == "a [[ b");  // unclosed: plain text
  CHECK(template_facts("[[{death.signal}||{cgroup.peak_bytes}]]") ==
        std::vector<std::string>{"death.signal", "cgroup.peak_bytes"});
}
