#include "supervise/process_tracker.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "unit/collect/collect_fixtures.h"

using ftdiag::Fact;
using ftdiag::evidence::ExitStatus;
using ftdiag::supervise::ProcessTracker;
using ftdiag::collect::testing::fixture_roots;

// tests/fixtures/process-tree: 200 is the root of a job (201..204 below it),
// 300 and 100 are processes of the host outside it.

TEST_CASE("process tracker: may_concern answers for the root, the live tree and remembered deaths only") {
  ProcessTracker tracker(fixture_roots("process-tree"), 200);
  CHECK(tracker.may_concern(200));   // the root: its forks start the tree
  CHECK_FALSE(tracker.may_concern(201));  // not seen yet
  CHECK_FALSE(tracker.may_concern(300));

  REQUIRE(tracker.on_fork(200, 201, 1.0));
  CHECK(tracker.may_concern(201));
  REQUIRE(tracker.on_fork(201, 202, 1.1));  // a child of a tracked child
  CHECK(tracker.may_concern(202));

  // A death is remembered: a later witness (waitpid after netlink) still matters.
  REQUIRE(tracker.on_exit(202, Fact<ExitStatus>(ExitStatus::from_wait_status(7 << 8)), "netlink", 2.0));
  CHECK_FALSE(tracker.is_live(202));
  CHECK(tracker.may_concern(202));
  CHECK(tracker.on_exit(202, Fact<ExitStatus>(ExitStatus::from_wait_status(7 << 8)), "subreaper", 2.1));
}

TEST_CASE("process tracker: events of processes outside the tree change nothing") {
  ProcessTracker tracker(fixture_roots("process-tree"), 200);
  // What the supervisor's sieve rejects is also what the tracker would ignore.
  CHECK_FALSE(tracker.may_concern(100));
  CHECK_FALSE(tracker.on_fork(100, 300, 1.0));
  CHECK_FALSE(tracker.may_concern(300));
  CHECK_FALSE(tracker.on_exec(300, 1.0));
  CHECK_FALSE(tracker.on_exit(300, Fact<ExitStatus>(ExitStatus::from_wait_status(0)), "netlink", 1.0));
  CHECK_FALSE(tracker.may_concern(300));
  CHECK(tracker.live_pids().empty());
}

// ftdiag's output relays descend from it like the job: they must never be
// recorded as the job's processes.
TEST_CASE("process tracker: an excluded process of ftdiag's own is neither seen nor recorded dead") {
  ProcessTracker tracker(fixture_roots("process-tree"), 200);
  tracker.exclude(201);
  CHECK_FALSE(tracker.on_fork(200, 201, 1.0));
  auto scanned = tracker.scan(1.0);
  for (const auto& seen : scanned.seen) CHECK(seen.pid != 201);
  CHECK_FALSE(tracker.is_live(201));
  CHECK_FALSE(tracker.on_exit(201, Fact<ExitStatus>(ExitStatus::from_wait_status(0)), "subreaper", 2.0));
  tracker.forget_excluded(201);
  CHECK(tracker.on_exit(201, Fact<ExitStatus>(ExitStatus::from_wait_status(0)), "subreaper", 3.0));
}

// A parent that reaps its children only at the end leaves thousands of
// zombies: each is one death, however many others died since.
TEST_CASE("process tracker: a zombie recorded dead is not announced again after thousands of later deaths") {
  ProcessTracker tracker(fixture_roots("process-tree"), 200);
  REQUIRE(tracker.on_fork(200, 201, 1.0));
  REQUIRE(tracker.on_fork(201, 204, 1.1));
  REQUIRE(tracker.on_exit(204, Fact<ExitStatus>(ExitStatus::from_wait_status(0)), "netlink", 1.2));
  for (int pid = 10000; pid < 10000 + 5000; ++pid) {
    REQUIRE(tracker.on_exit(pid, Fact<ExitStatus>(ExitStatus::from_wait_status(0)), "waitpid", 2.0));
  }
  auto scanned = tracker.scan(3.0);
  for (const auto& seen : scanned.seen) CHECK(seen.pid != 204);
  for (const auto& died : scanned.died) CHECK(died.pid != 204);
}

// On a loaded machine a short-lived worker's exec event is read after the
// worker is gone: its stat unreadable, its parent must stay the one its fork
// named, never 0 (which would orphan it in the record).
TEST_CASE("process tracker: an exec read after the process's stat is gone keeps the parent its fork named") {
  namespace fs = std::filesystem;
  const fs::path tree = fs::temp_directory_path() / ("ftdiag-tracker-" + std::to_string(::getpid()));
  fs::remove_all(tree);
  fs::copy(ftdiag::collect::testing::fixture_path("process-tree"), tree, fs::copy_options::recursive);
  ProcessTracker tracker(ftdiag::collect::SystemRoots{tree}, 200);
  auto forked = tracker.on_fork(200, 201, 1.0);
  REQUIRE(forked);
  CHECK(forked->ppid == 200);
  // It execs a new program, then its stat is gone before the event is read.
  {
    std::ofstream cmdline(tree / "proc/201/cmdline", std::ios::binary | std::ios::trunc);
    cmdline << std::string("python\0worker.py\0", 17);
  }
  fs::remove(tree / "proc/201/stat");
  auto executed = tracker.on_exec(201, 1.1);
  REQUIRE(executed);
  CHECK(executed->ppid == 200);
  CHECK(executed->argv == std::vector<std::string>{"python", "worker.py"});
  fs::remove_all(tree);
}
