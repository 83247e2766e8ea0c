#include <doctest/doctest.h>

#include "evidence_builder.h"
#include "facts/extract.h"
#include "facts/incident.h"

using namespace ftdiag;
using namespace ftdiag::facts;
using namespace ftdiag::facts::testing;

namespace {

// torchrun (the job) with a helper that exited 1 early, a worker the OOM
// killer took at 50 s, and a worker the launcher stopped at 52 s.
evidence::RunEvidence oom_run() {
  auto run = run_started();
  add_process(run, kJobPid, {"torchrun", "train.py"}, 53.0, ExitStatus::exited(1));
  add_process(run, 101, {"python", "train.py"}, 50.0, ExitStatus::killed(SIGKILL));
  add_process(run, 102, {"which", "nvidia-smi"}, 10.0, ExitStatus::exited(1));
  add_process(run, 103, {"python", "train.py", "--rank=1"}, 52.0, ExitStatus::killed(SIGTERM));
  end_run(run, 53.5, ExitStatus::exited(1));
  return run;
}

}  // namespace

TEST_CASE("incident: the earliest death by a signal, not an earlier non-zero exit of a helper") {
  const auto document = document_of({oom_run()});
  const auto incident = find_incident(document);
  REQUIRE(incident);
  REQUIRE(incident->run);
  CHECK(incident->run->run == 0);
  CHECK(incident->source == IncidentSource::journal);
  CHECK(incident->process == std::optional<std::size_t>(1));
  REQUIRE(incident->time);
  CHECK(*incident->time == doctest::Approx(kStart + 50));
  CHECK(incident->status == ExitStatus::killed(SIGKILL));

  const FactSet facts = extract_facts(document);
  CHECK(value_of<std::int64_t>(facts, "death.signal") == SIGKILL);
  CHECK(facts.get("death.signal").pointer == "/hosts/0/runs/0/processes/1/death/status");
  CHECK(missing_reason(facts, "death.exit_code").find("signal") != std::string::npos);
  CHECK(value_of<std::int64_t>(facts, "death.pid") == 101);
  CHECK(value_of<double>(facts, "death.after") == doctest::Approx(50));
  CHECK(value_of<std::string>(facts, "death.command") == "python train.py");
  CHECK_FALSE(value_of<bool>(facts, "death.is_job"));
  CHECK(value_of<std::string>(facts, "death.witnesses") == "netlink,waitpid");
  CHECK(value_of<std::int64_t>(facts, "deaths.by_signal") == 2);
  CHECK(value_of<std::int64_t>(facts, "deaths.by_sigkill") == 1);
  CHECK(value_of<std::int64_t>(facts, "deaths.after_incident") == 1);
  CHECK(value_of<double>(facts, "deaths.teardown_span") == doctest::Approx(2));
  CHECK(value_of<std::int64_t>(facts, "job.exit_code") == 1);
  CHECK(value_of<std::int64_t>(facts, "job.launcher_code") == 1);
  CHECK(value_of<bool>(facts, "job.failed"));
  CHECK(value_of<double>(facts, "job.duration") == doctest::Approx(53.5));
}

TEST_CASE("incident: the earliest across runs") {
  auto rank0 = oom_run();
  auto rank1 = run_started();
  add_process(rank1, kJobPid, {"python", "train.py"}, 30.0, ExitStatus::killed(SIGSEGV, true));
  end_run(rank1, 30.1, ExitStatus::killed(SIGSEGV, true));
  const auto document = document_of({rank0, rank1});
  const auto incident = find_incident(document);
  REQUIRE(incident);
  REQUIRE(incident->run);
  CHECK(incident->run->run == 1);
  const FactSet facts = extract_facts(document);
  CHECK(value_of<std::int64_t>(facts, "death.signal") == SIGSEGV);
  CHECK(value_of<bool>(facts, "death.core_dumped"));
  CHECK(value_of<bool>(facts, "death.is_job"));
  CHECK(facts.get("death.pid").pointer == "/hosts/0/runs/1/processes/0/pid");
  CHECK(value_of<std::int64_t>(facts, "job.signal") == SIGSEGV);
  CHECK(value_of<std::int64_t>(facts, "job.runs") == 2);
  // rank 0's worker (SIGKILL, 20 s later) counts as torn down after it.
  CHECK(value_of<std::int64_t>(facts, "deaths.after_incident") == 2);
}

TEST_CASE("incident: falls back to the job's non-zero exit") {
  auto run = run_started();
  add_process(run, 102, {"which", "nvidia-smi"}, 5.0, ExitStatus::exited(1));
  add_process(run, kJobPid, {"python", "train.py"}, 20.0, ExitStatus::exited(2));
  end_run(run, 20.2, ExitStatus::exited(2));
  const auto document = document_of({run});
  const auto incident = find_incident(document);
  REQUIRE(incident);
  CHECK(incident->process == std::optional<std::size_t>(1));
  REQUIRE(incident->time);
  CHECK(*incident->time == doctest::Approx(kStart + 20));

  const FactSet facts = extract_facts(document);
  CHECK(value_of<std::int64_t>(facts, "death.exit_code") == 2);
  CHECK(missing_reason(facts, "death.signal") == "exited: no signal");
  CHECK(value_of<std::int64_t>(facts, "death.pid") == kJobPid);
  CHECK(value_of<bool>(facts, "death.is_job"));
  CHECK(value_of<double>(facts, "death.after") == doctest::Approx(20));
  CHECK(value_of<std::int64_t>(facts, "deaths.after_incident") == 0);
}

TEST_CASE("incident: the job's exit alone, without its process record") {
  auto run = run_started();
  end_run(run, 42, ExitStatus::exited(3));
  const auto document = document_of({run});
  const auto incident = find_incident(document);
  REQUIRE(incident);
  CHECK_FALSE(incident->process);
  const FactSet facts = extract_facts(document);
  CHECK(value_of<std::int64_t>(facts, "death.exit_code") == 3);
  CHECK(value_of<double>(facts, "death.after") == doctest::Approx(42));
  CHECK_FALSE(facts.get("death.pid").value);
}

TEST_CASE("incident: none for a clean run, and the death facts say why") {
  auto run = run_started();
  add_process(run, 102, {"which", "nvidia-smi"}, 5.0, ExitStatus::exited(1));
  add_process(run, kJobPid, {"python", "train.py"}, 60.0, ExitStatus::exited(0));
  end_run(run, 60.1, ExitStatus::exited(0));
  const auto document = document_of({run});
  CHECK_FALSE(find_incident(document));
  const FactSet facts = extract_facts(document);
  for (const char* name : {"death.pid", "death.signal", "death.exit_code", "death.after", "death.command", "deaths.after_incident"}) {
    CAPTURE(name);
    CHECK(missing_reason(facts, name) == "no process died by a signal and the job did not fail");
  }
  CHECK_FALSE(value_of<bool>(facts, "job.failed"));
  CHECK(value_of<std::int64_t>(facts, "deaths.by_signal") == 0);
}

TEST_CASE("incident: a death seen only as a disappearance is not an incident") {
  auto run = run_started();
  add_process(run, 101, {"python", "train.py"}, 5.0);  // status unknown
  end_run(run, 6, ExitStatus::exited(0));
  CHECK_FALSE(find_incident(document_of({run})));
  CHECK_FALSE(find_incident(document_of({})));
}

TEST_CASE("incident: a successful job has none, even when processes inside it were killed") {
  auto run = run_started();
  add_process(run, 101, {"sleep", "60"}, 2.0, ExitStatus::killed(SIGKILL));
  add_process(run, kJobPid, {"sh", "-c", "..."}, 3.0, ExitStatus::exited(0));
  end_run(run, 3.1, ExitStatus::exited(0));
  const auto document = document_of({run});
  CHECK_FALSE(find_incident(document));
  const FactSet facts = extract_facts(document);
  CHECK(value_of<std::int64_t>(facts, "deaths.by_sigkill") == 1);
  CHECK_FALSE(facts.get("death.signal").value);
}

TEST_CASE("incident: a process that vanished while the cgroup counted an OOM kill is inferred SIGKILLed") {
  auto run = run_started();
  add_process(run, 101, {"python", "worker.py"}, 4.0).peak_rss = Bytes{1000};   // vanished, small
  add_process(run, 102, {"python", "train.py"}, 5.0).peak_rss = Bytes{90000};   // vanished, the largest
  add_process(run, kJobPid, {"launcher"}, 6.0, ExitStatus::exited(1));
  end_run(run, 6.1, ExitStatus::exited(1));
  run.memory.cgroup_first = cgroup(Bytes{100000}, 3);  // a counter reused from an earlier job
  run.memory.cgroup_last = cgroup(Bytes{100000}, 4);
  const auto document = document_of({run});
  const auto incident = find_incident(document);
  REQUIRE(incident);
  REQUIRE(incident->process);
  CHECK(document.hosts[0].runs[0].processes[*incident->process].pid == 102);
  CHECK(incident->status.signal == SIGKILL);
  CHECK(incident->inferred.find("2 processes") != std::string::npos);
  const FactSet facts = extract_facts(document);
  CHECK(value_of<std::int64_t>(facts, "death.signal") == SIGKILL);
  CHECK(value_of<std::string>(facts, "death.inferred").find("counted 1 OOM kill(s)") != std::string::npos);

  // Without an OOM kill counted during the run, nothing is inferred.
  run.memory.cgroup_last = cgroup(Bytes{100000}, 3);
  const auto without = find_incident(document_of({run}));
  REQUIRE(without);
  CHECK_FALSE(without->status.signal);  // the launcher's exit 1
}

TEST_CASE("incident: SIGKILLs the cgroup counted as OOM kills are more victims, not the launcher's teardown") {
  auto run = run_started();
  add_process(run, 101, {"python", "train.py", "--rank=0"}, 50.0, ExitStatus::killed(SIGKILL));
  add_process(run, 102, {"python", "train.py", "--rank=1"}, 50.4, ExitStatus::killed(SIGKILL));
  add_process(run, 103, {"python", "train.py", "--rank=2"}, 51.0, ExitStatus::killed(SIGTERM));
  add_process(run, 104, {"python", "train.py", "--rank=3"}, 81.0, ExitStatus::killed(SIGKILL));
  add_process(run, kJobPid, {"torchrun", "train.py"}, 82.0, ExitStatus::exited(1));
  end_run(run, 82.1, ExitStatus::exited(1));
  run.memory.cgroup_first = cgroup(Bytes{100000}, 0);
  run.memory.cgroup_last = cgroup(Bytes{100000}, 2);
  const FactSet facts = extract_facts(document_of({run}));
  CHECK(value_of<std::int64_t>(facts, "death.pid") == 101);
  // Rank 1's SIGKILL is the second OOM kill; rank 2's SIGTERM and rank 3's
  // SIGKILL 30 s later are the teardown.
  CHECK(value_of<std::int64_t>(facts, "deaths.oom_killed_after_incident") == 1);
  CHECK(value_of<std::int64_t>(facts, "deaths.after_incident") == 2);
  CHECK(value_of<double>(facts, "deaths.teardown_span") == doctest::Approx(31));
}

TEST_CASE("incident: of deaths seen at the same instant, the launcher's SIGTERM is not the cause of the SIGKILL") {
  // One netlink read carries both exits: the OOM victim's and the survivor's
  // the launcher stopped. The survivor comes first in the process list.
  auto run = run_started();
  add_process(run, kJobPid, {"python", "launch.py"}, 9.0, ExitStatus::exited(1));
  add_process(run, 101, {"python", "-c", "spawn_main"}, 8.0, ExitStatus::killed(SIGTERM)).ppid = kJobPid;
  add_process(run, 102, {"python", "-c", "spawn_main"}, 8.0, ExitStatus::killed(SIGKILL)).ppid = kJobPid;
  end_run(run, 9.1, ExitStatus::exited(1));
  const auto incident = find_incident(document_of({run}));
  REQUIRE(incident);
  CHECK(incident->process == std::optional<std::size_t>(2));
  CHECK(incident->status == ExitStatus::killed(SIGKILL));
}
