#include "supervise/process_tracker.h"

#include <doctest/doctest.h>

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
