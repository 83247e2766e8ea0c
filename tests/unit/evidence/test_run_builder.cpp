#include <doctest/doctest.h>

#include <csignal>

#include "evidence/run_builder.h"
#include "evidence/timeline.h"

using namespace ftdiag;
using namespace ftdiag::evidence;

namespace {

MemorySample sample_at(double t, Bytes cgroup_usage, Bytes rss, Bytes available) {
  MemorySample s;
  s.time = t;
  s.node.mem_total = 1000u;
  s.node.mem_available = available;
  CgroupMemory c;
  c.version = 2;
  c.path = "/job";
  c.usage = cgroup_usage;
  c.limit = std::optional<Bytes>(500);
  s.cgroup = c;
  s.processes.push_back(ProcessMemory{10, rss, Missing{}, Missing{}, Missing{}, rss, Missing{}});
  return s;
}

}  // namespace

TEST_CASE("the run builder folds deaths, witnesses and watermarks") {
  RunBuilder builder;
  RunStarted start;
  start.time = 0;
  start.job_pid = 10;
  builder.add(start);
  builder.add(ProcessSeen{0.1, 10, 1, {10}, {"python", "train.py"}, "python", 5u, "spawn"});
  builder.add(sample_at(1, 100, 80, 900));
  builder.add(sample_at(2, 450, 400, 500));
  builder.add(sample_at(3, 300, 250, 700));
  builder.add(ProcessDied{3.5, 10, ExitStatus::killed(SIGKILL), {"netlink"}});
  builder.add(ProcessDied{3.6, 10, ExitStatus::killed(SIGKILL), {"waitpid"}});
  RunEvidence run = std::move(builder).finish("host-rank0");

  REQUIRE(run.processes.size() == 1);
  const auto& p = run.processes[0];
  REQUIRE(p.death);
  CHECK(p.death->witnesses == std::vector<std::string>{"netlink", "waitpid"});
  CHECK(p.peak_rss.value() == 400);
  CHECK(run.memory.cgroup_peak.value() == 450);
  CHECK(run.memory.node_min_available.value() == 500);
  CHECK(*run.memory.node_min_available_time == 2);
  CHECK(run.memory.job_rss_peak.value() == 400);
  // The journal has no end record (ftdiag was killed): the job's status
  // comes from its own death.
  CHECK_FALSE(run.ended);
  CHECK(run.job_status.value() == ExitStatus::killed(SIGKILL));
  CHECK(run.timeline.size() == 3);
}

TEST_CASE("a journal without the job's end says so instead of inventing a status") {
  RunBuilder builder;
  RunStarted start;
  start.job_pid = 10;
  builder.add(start);
  RunEvidence run = std::move(builder).finish("x");
  REQUIRE_FALSE(run.job_status.has_value());
  CHECK(run.job_status.missing().reason == MissingReason::not_present);
}

TEST_CASE("a vanished cgroup does not erase the last real reading") {
  RunBuilder builder;
  builder.add(RunStarted{});
  builder.add(sample_at(1, 480, 10, 900));
  MemorySample gone;
  gone.time = 2;
  CgroupMemory empty;
  empty.version = 2;
  empty.usage = Missing{MissingReason::not_present, "cgroup removed"};
  gone.cgroup = empty;
  builder.add(gone);
  RunEvidence run = std::move(builder).finish("x");
  CHECK(run.memory.cgroup_last->usage.value() == 480);
}

TEST_CASE("downsampling keeps the extremes and the final stretch") {
  std::vector<TimelinePoint> points;
  for (int i = 0; i < 10000; ++i) {
    TimelinePoint p;
    p.time = i;
    p.cgroup_usage = Bytes(i == 1234 ? 99999 : i % 7);
    p.node_available = Bytes(i == 4321 ? 1 : 1000);
    points.push_back(p);
  }
  auto kept = downsample_timeline(points, 200, 50);
  REQUIRE(kept.size() <= 200);
  CHECK(kept.back().time == 9999);
  CHECK(kept[kept.size() - 50].time == 9950);
  bool spike = false, dip = false;
  for (const auto& p : kept) {
    spike |= p.cgroup_usage.value() == 99999;
    dip |= p.node_available.value() == 1;
  }
  CHECK(spike);
  CHECK(dip);
  CHECK(downsample_timeline(std::vector<TimelinePoint>(5), 200, 50).size() == 5);
}

TEST_CASE("short-lived processes that ended normally are summarised per command, in bounded memory") {
  RunBuilder builder;
  RunStarted start;
  start.job_pid = 10;
  builder.add(start);
  builder.add(ProcessSeen{0.0, 10, 1, {10}, {"bash", "loop.sh"}, "bash", 1u, "spawn"});
  constexpr int kHelpers = 220000;
  for (int i = 0; i < kHelpers; ++i) {
    const int pid = 1000 + i % 30000;  // pids are reused, as on a real host
    const double t = 1 + i * 0.001;
    builder.add(ProcessSeen{t, pid, 10, {pid}, {"/usr/bin/true"}, "true", std::nullopt, "netlink-fork"});
    builder.add(ProcessDied{t + 0.0005, pid, ExitStatus::exited(0), {"netlink"}});
    // The subreaper's late witness of the same death must not resurrect it.
    builder.add(ProcessDied{t + 0.0006, pid, ExitStatus::exited(0), {"subreaper"}});
  }
  // A worker killed by a signal and a failing helper are kept whole.
  builder.add(ProcessSeen{300, 77, 10, {77}, {"python", "worker"}, "python", std::nullopt, "netlink-fork"});
  builder.add(ProcessDied{301, 77, ExitStatus::killed(SIGKILL), {"netlink"}});
  builder.add(ProcessSeen{302, 78, 10, {78}, {"which", "nvcc"}, "which", std::nullopt, "netlink-fork"});
  builder.add(ProcessDied{302.1, 78, ExitStatus::exited(1), {"netlink"}});
  builder.add(RunEnded{400, ExitStatus::exited(0)});
  RunEvidence run = std::move(builder).finish("x");

  REQUIRE(run.process_summary.size() == 1);
  CHECK(run.process_summary[0].command == "true");
  CHECK(run.process_summary[0].count == kHelpers);
  CHECK(run.process_summary[0].exit_nonzero == 0);
  CHECK(run.process_summary[0].longest_life_s == doctest::Approx(0.0005));
  // The job, the killed worker and the failed helper; none of the helpers.
  REQUIRE(run.processes.size() == 3);
  CHECK(run.processes[0].pid == 10);
  CHECK(run.processes[1].pid == 77);
  CHECK(run.processes[1].death->status.value() == ExitStatus::killed(SIGKILL));
  CHECK(run.processes[2].comm == "which");
  for (const auto& p : run.processes) CHECK(p.seen_by != "unannounced");
}

TEST_CASE("long-lived processes that exited normally are kept: they are ranks and workers") {
  RunBuilder builder;
  RunStarted start;
  start.job_pid = 10;
  builder.add(start);
  builder.add(ProcessSeen{0, 10, 1, {10}, {"torchrun"}, "torchrun", 1u, "spawn"});
  builder.add(ProcessSeen{1, 11, 10, {11}, {"python", "train.py"}, "python", 2u, "netlink-fork"});
  builder.add(ProcessDied{1 + kLongLivedSeconds + 1, 11, ExitStatus::exited(0), {"netlink"}});
  RunEvidence run = std::move(builder).finish("x");
  REQUIRE(run.processes.size() == 2);
  CHECK(run.processes[1].pid == 11);
  CHECK(run.process_summary.empty());
}

// A cgroup reused from an earlier job still shows that job's peak until it is
// reset: the kernel's figure counts only when the reading says it was.
TEST_CASE("the cgroup peak is the kernel's only when it was reset for this job, else the sampled usage") {
  auto run_with_kernel_peak = [](Fact<bool> reset) {
    RunBuilder builder;
    builder.add(RunStarted{});
    auto s = sample_at(1, 100, 80, 900);
    CgroupMemory c = s.cgroup.value();
    c.peak = Bytes{500};  // the earlier job's, at the limit
    c.peak_reset = reset;
    s.cgroup = c;
    builder.add(s);
    builder.add(sample_at(2, 120, 80, 900));
    return std::move(builder).finish("x");
  };
  CHECK(run_with_kernel_peak(Missing{MissingReason::not_present, "pid 812 (bash) shares the cgroup"}).memory.cgroup_peak.value() == 120);
  CHECK(run_with_kernel_peak(Missing{MissingReason::not_present, "the peak was not reset"}).memory.cgroup_peak.value() == 120);
  CHECK(run_with_kernel_peak(true).memory.cgroup_peak.value() == 500);
}

TEST_CASE("a note of a failed write is kept past the cap on notes, once, and explains a missing end") {
  RunBuilder builder;
  RunStarted start;
  start.job_pid = 10;
  builder.add(start);
  for (std::size_t i = 0; i < kMaxNotes + 5; ++i) builder.add(SupervisorNote{1, "forwarded SIGTERM to the job"});
  const WriteFailure full{2.5, "console.log", "write", 28, "No space left on device"};
  builder.add(SupervisorNote{3, "the record is incomplete", full});
  builder.add(SupervisorNote{4, "the record is incomplete", WriteFailure{4, "journal.jsonl", "write", 28, "x"}});
  CHECK(builder.has_write_failure());
  RunEvidence run = std::move(builder).finish("x");
  int failures = 0;
  for (const auto& note : run.notes) {
    if (note.write_failure) {
      ++failures;
      CHECK(*note.write_failure == full);
    }
  }
  CHECK(failures == 1);
  REQUIRE_FALSE(run.job_status);
  CHECK(run.job_status.missing().detail.find("writing it failed") != std::string::npos);
}
