// The shape of the job's memory curve before the incident: steady growth
// (a leak) must look different from a flat curve with a spike at the end
// (a checkpoint save, a model load).
#include <doctest/doctest.h>

#include <functional>

#include "evidence_builder.h"
#include "facts/extract.h"

using namespace ftdiag;
using namespace ftdiag::facts;
using namespace ftdiag::facts::testing;

namespace {

constexpr double kDeathAt = 100.5;

// One sample a second for 100 s, the job OOM-killed half a second after the
// last; the curve is the cgroup's usage (it has a 20000-byte limit).
evidence::RunEvidence run_with_curve(const std::function<Bytes(int)>& usage_at) {
  auto run = run_started();
  add_process(run, kJobPid, {"python", "train.py"}, kDeathAt, ExitStatus::killed(SIGKILL));
  end_run(run, kDeathAt + 0.1, ExitStatus::killed(SIGKILL));
  run.memory.cgroup_first = cgroup(Bytes{20000}, 0);
  run.memory.cgroup_last = cgroup(Bytes{20000}, 1);
  for (int i = 1; i <= 100; ++i) run.timeline.push_back(point(i, usage_at(i), Bytes{1}));
  run.timeline.push_back(point(kDeathAt + 1, Bytes{7}, Bytes{1}));  // after the death: ignored
  return run;
}

// Growth after the model is loaded, 70 bytes a second, dipping every 4th
// sample (a garbage collection): 25 of the 99 changes are decreases.
Bytes steady(int i) { return static_cast<Bytes>(3000 + 70 * i - (i % 4 == 0 ? 100 : 0)); }

// Flat, then five samples of climbing at the end.
Bytes flat_then_spike(int i, Bytes flat) {
  if (i <= 95) return flat;
  return flat + static_cast<Bytes>(i - 95) * (10000 - flat) / 5;
}

}  // namespace

TEST_CASE("memory curve: steady growth") {
  const FactSet facts = extract_facts(document_of({run_with_curve(steady)}));
  CHECK(value_of<std::int64_t>(facts, "memory.samples") == 100);
  CHECK(value_of<double>(facts, "memory.rising_fraction") == doctest::Approx(74.0 / 99.0));
  // Base: the median of the first ten samples (3420); peak 9930 at 99 s.
  CHECK(value_of<double>(facts, "memory.growth_factor") == doctest::Approx(9930.0 / 3420.0));
  // Memory last stood within a tenth of the climb from the base (4071) at
  // 16 s (a dip to 4020): the rise took 99 - 16 s, most of the run.
  CHECK(value_of<double>(facts, "memory.rise_span") == doctest::Approx(83));
  CHECK(value_of<double>(facts, "memory.rise_span_ratio") == doctest::Approx(83 / kDeathAt));
}

TEST_CASE("memory curve: flat and low, then a spike") {
  const FactSet facts = extract_facts(document_of({run_with_curve([](int i) { return flat_then_spike(i, 3000); })}));
  CHECK(value_of<double>(facts, "memory.rising_fraction") == doctest::Approx(1.0));
  CHECK(value_of<double>(facts, "memory.growth_factor") == doctest::Approx(10000.0 / 3000.0));
  CHECK(value_of<double>(facts, "memory.rise_span") == doctest::Approx(5));  // from the last flat sample, 95 s
  CHECK(value_of<double>(facts, "memory.rise_span_ratio") < 0.1);
}

// A job that sits at 60% of its peak all run and climbs only in its last
// five seconds did not grow steadily: the climb took five seconds, though no
// sample was ever below half the peak.
TEST_CASE("memory curve: flat above half the peak, then a spike, is a short rise") {
  const FactSet facts = extract_facts(document_of({run_with_curve([](int i) { return flat_then_spike(i, 6000); })}));
  CHECK(value_of<double>(facts, "memory.growth_factor") == doctest::Approx(10000.0 / 6000.0));
  CHECK(value_of<double>(facts, "memory.rise_span") <= 5);
  CHECK(value_of<double>(facts, "memory.rise_span_ratio") < 0.5);
}

TEST_CASE("memory curve: without a cgroup limit the job's RSS is the curve") {
  auto run = run_with_curve([](int) { return Bytes{1}; });
  run.memory.cgroup_last = cgroup(std::nullopt, 0);
  for (std::size_t i = 0; i < run.timeline.size(); ++i) run.timeline[i].job_rss = steady(static_cast<int>(i) + 1);
  const FactSet facts = extract_facts(document_of({run}));
  CHECK(value_of<double>(facts, "memory.growth_factor") == doctest::Approx(9930.0 / 3420.0));
  CHECK(value_of<double>(facts, "memory.rise_span") == doctest::Approx(83));
}

TEST_CASE("memory curve: fewer than two samples give only the count") {
  auto run = run_with_curve(steady);
  run.timeline.resize(1);
  const FactSet facts = extract_facts(document_of({run}));
  CHECK(value_of<std::int64_t>(facts, "memory.samples") == 1);
  for (const char* name : {"memory.rising_fraction", "memory.growth_factor", "memory.rise_span", "memory.rise_span_ratio"}) {
    CAPTURE(name);
    CHECK_FALSE(facts.get(name).value);
  }
}

TEST_CASE("memory curve: a flat curve has no changes to count") {
  const FactSet facts = extract_facts(document_of({run_with_curve([](int) { return Bytes{5000}; })}));
  CHECK_FALSE(facts.get("memory.rising_fraction").value);
  CHECK(value_of<double>(facts, "memory.growth_factor") == doctest::Approx(1.0));
  CHECK(value_of<double>(facts, "memory.rise_span") == doctest::Approx(0));
}

// Start-up is not growth: importing the framework and building the model
// climb for 20 s, training stands still, then a save jumps in the last 3 s.
// Before start-up was cut off, this read as growth over most of the run.
TEST_CASE("memory curve: a climb during start-up, then flat training, then a save is a flat-then-jump") {
  auto startup_then_save = [](int i) -> Bytes {
    if (i <= 20) return static_cast<Bytes>(300 * i);          // imports, model
    if (i <= 97) return static_cast<Bytes>(6000 + (i % 2) * 30);  // training, steady
    return static_cast<Bytes>(6000 + (i - 97) * 1300);        // the save
  };
  auto run = run_with_curve(startup_then_save);
  run.console.phases = {stretch("training", 21.2, "{'loss': 2.3}"), stretch("checkpoint-save", 97.5, "Saving model checkpoint")};
  const FactSet facts = extract_facts(document_of({run}));
  CHECK(value_of<std::string>(facts, "memory.startup_end_by") == "training-phase");
  CHECK(value_of<double>(facts, "memory.startup_end") == doctest::Approx(22));  // the first still sample after the line
  CHECK(value_of<std::string>(facts, "memory.shape") == "flat-then-jump");
  CHECK(value_of<double>(facts, "memory.growth_factor") == doctest::Approx(9900.0 / 6000.0).epsilon(0.01));
  CHECK(value_of<double>(facts, "memory.rise_span") <= 3);
  CHECK(value_of<bool>(facts, "memory.rise_began_in_phase"));
}

TEST_CASE("memory curve: without a training line, start-up ends where memory first stands still") {
  auto run = run_with_curve([](int i) -> Bytes { return i <= 10 ? static_cast<Bytes>(500 * i) : Bytes{5000}; });
  const FactSet facts = extract_facts(document_of({run}));
  CHECK(value_of<std::string>(facts, "memory.startup_end_by") == "memory-levelled");
  CHECK(value_of<double>(facts, "memory.startup_end") == doctest::Approx(10));
  CHECK(value_of<std::string>(facts, "memory.shape") == "flat");
}

TEST_CASE("memory curve: a leak after start-up is a steady climb, memory given back again and again is a sawtooth") {
  auto leak = run_with_curve([](int i) -> Bytes { return i <= 10 ? static_cast<Bytes>(400 * i) : static_cast<Bytes>(4000 + 60 * (i - 10)); });
  leak.console.phases = {stretch("training", 10.5, "{'loss': 2.3}")};
  const FactSet leaking = extract_facts(document_of({leak}));
  CHECK(value_of<std::string>(leaking, "memory.shape") == "steady-climb");
  CHECK(value_of<double>(leaking, "memory.rise_span_ratio") > 0.8);  // of the time since start-up
  auto saw = run_with_curve([](int i) -> Bytes { return static_cast<Bytes>(4000 + (i % 20) * 300); });
  saw.console.phases = {stretch("training", 1, "{'loss': 2.3}")};
  CHECK(value_of<std::string>(extract_facts(document_of({saw})), "memory.shape") == "sawtooth");
}

TEST_CASE("memory curve: a save that began while memory was already climbing does not take the jump") {
  auto run = run_with_curve([](int i) -> Bytes { return i <= 5 ? Bytes{4000} : static_cast<Bytes>(4000 + 60 * i); });
  run.console.phases = {stretch("training", 1, "{'loss': 2.3}"), stretch("checkpoint-save", 99, "Saving model checkpoint")};
  const FactSet facts = extract_facts(document_of({run}));
  CHECK(value_of<std::string>(facts, "phase.at_death") == "checkpoint-save");
  CHECK_FALSE(value_of<bool>(facts, "memory.rise_began_in_phase"));
}
