#include <doctest/doctest.h>

#include "evidence_builder.h"
#include "facts/extract.h"

using namespace ftdiag;
using namespace ftdiag::facts;
using namespace ftdiag::facts::testing;

namespace {

constexpr Bytes kMebibyte = 1 << 20;

// A worker OOM-killed at 25 s in a cgroup limited to 1000 MiB whose
// counters already showed 2 kills and 4 OOM events before the job ran.
evidence::RunEvidence limited_run() {
  auto run = run_started();
  add_process(run, kJobPid, {"python", "train.py"}, 25.0, ExitStatus::killed(SIGKILL));
  end_run(run, 25.1, ExitStatus::killed(SIGKILL));
  run.memory.cgroup_first = cgroup(1000 * kMebibyte, 2, 4);
  run.memory.cgroup_last = cgroup(1000 * kMebibyte, 5, 4);
  run.memory.cgroup_peak = 950 * kMebibyte;
  run.memory.node_mem_total = 4000 * kMebibyte;
  run.memory.node_min_available = 120 * kMebibyte;
  run.timeline = {point(10, 500 * kMebibyte, 400 * kMebibyte, 2000 * kMebibyte), point(20, 900 * kMebibyte, 800 * kMebibyte, 400 * kMebibyte),
                  point(25.05, 100 * kMebibyte, 0, 3000 * kMebibyte)};  // after the death
  return run;
}

}  // namespace

TEST_CASE("cgroup facts: OOM counters count only what happened during the run") {
  const FactSet facts = extract_facts(document_of({limited_run()}));
  CHECK(value_of<std::int64_t>(facts, "cgroup.oom_kill") == 3);
  CHECK(value_of<std::int64_t>(facts, "cgroup.oom_events") == 0);
  CHECK(facts.get("cgroup.oom_kill").pointer == "/hosts/0/runs/0/memory/cgroup/oom_kill");
  CHECK(value_of<std::int64_t>(facts, "cgroup.version") == 2);
}

TEST_CASE("cgroup facts: peak and usage before the death as ratios of the limit") {
  const FactSet facts = extract_facts(document_of({limited_run()}));
  CHECK(value_of<std::int64_t>(facts, "cgroup.limit_bytes") == static_cast<std::int64_t>(1000 * kMebibyte));
  CHECK(value_of<std::int64_t>(facts, "cgroup.peak_bytes") == static_cast<std::int64_t>(950 * kMebibyte));
  CHECK(value_of<double>(facts, "cgroup.peak_ratio") == doctest::Approx(0.95));
  // The last sample at or before the death (20 s), not the one after it.
  CHECK(value_of<double>(facts, "cgroup.usage_before_death_ratio") == doctest::Approx(0.9));
  CHECK(facts.get("cgroup.peak_ratio").pointer == "/hosts/0/runs/0/memory/cgroup_peak_bytes");
}

TEST_CASE("cgroup facts: without a limit the ratios are missing with the reason") {
  auto run = limited_run();
  run.memory.cgroup_first = cgroup(std::nullopt, 0);
  run.memory.cgroup_last = cgroup(std::nullopt, 0);
  const FactSet facts = extract_facts(document_of({run}));
  for (const char* name : {"cgroup.limit_bytes", "cgroup.peak_ratio", "cgroup.usage_before_death_ratio"}) {
    CAPTURE(name);
    CHECK(missing_reason(facts, name).find("no memory limit") != std::string::npos);
  }
  CHECK(value_of<std::int64_t>(facts, "cgroup.peak_bytes") == static_cast<std::int64_t>(950 * kMebibyte));
  CHECK(value_of<std::int64_t>(facts, "cgroup.oom_kill") == 0);
}

TEST_CASE("cgroup facts: an unreadable limit or cgroup passes its reason on") {
  auto run = limited_run();
  auto c = cgroup(std::nullopt, 0);
  c.limit = Missing{MissingReason::permission_denied, "open memory.max: Permission denied"};
  run.memory.cgroup_last = c;
  FactSet facts = extract_facts(document_of({run}));
  CHECK(missing_reason(facts, "cgroup.limit_bytes") == "open memory.max: Permission denied");

  run.memory.cgroup_last = Missing{MissingReason::not_present, "the job is in no memory cgroup"};
  facts = extract_facts(document_of({run}));
  for (const char* name : {"cgroup.version", "cgroup.limit_bytes", "cgroup.peak_ratio", "cgroup.oom_kill"}) {
    CAPTURE(name);
    CHECK(missing_reason(facts, name) == "the job is in no memory cgroup");
  }
}

TEST_CASE("node facts: lowest available memory and the last sample before the death") {
  const FactSet facts = extract_facts(document_of({limited_run()}));
  CHECK(value_of<std::int64_t>(facts, "node.mem_total_bytes") == static_cast<std::int64_t>(4000 * kMebibyte));
  CHECK(value_of<double>(facts, "node.min_available_ratio") == doctest::Approx(0.03));
  CHECK(value_of<double>(facts, "node.available_before_death_ratio") == doctest::Approx(0.1));
  CHECK_FALSE(facts.get("node.swap_total_bytes").value);
}
