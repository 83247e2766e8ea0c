#include <doctest/doctest.h>

#include <unistd.h>

#include "collect/host/proc_cmdline.h"
#include "collect/host/proc_stat.h"
#include "collect/host/proc_statm.h"
#include "collect_fixtures.h"

using namespace ftdiag;
using namespace ftdiag::collect;
using testing::fixture_roots;

TEST_CASE("read_proc_stat: this test process, live") {
  auto stat = read_proc_stat(SystemRoots{}, static_cast<int>(::getpid()));
  REQUIRE(stat);
  CHECK(stat->pid == ::getpid());
  CHECK(stat->ppid == ::getppid());
  CHECK(stat->state == 'R');
  CHECK(stat->start_time_ticks > 0);
}

TEST_CASE("read_proc_statm: live resident size agrees with status in magnitude") {
  auto statm = read_proc_statm(SystemRoots{}, static_cast<int>(::getpid()));
  REQUIRE(statm);
  CHECK(statm->resident > 0);
  CHECK(statm->size >= statm->resident);
}

TEST_CASE("read_proc_cmdline: fixture and live") {
  auto args = read_proc_cmdline(fixture_roots("cgroup-v1"), 4242);
  REQUIRE(args);
  REQUIRE(args->size() == 7);
  CHECK(args->at(1) == "/home/alice/ft/train.py");
  CHECK(args->at(2) == "--config");
  CHECK(args->back() == "--name=my run");

  auto live = read_proc_cmdline(SystemRoots{}, static_cast<int>(::getpid()));
  REQUIRE(live);
  REQUIRE_FALSE(live->empty());

  auto gone = read_proc_cmdline(fixture_roots("cgroup-v1"), 31337);
  REQUIRE_FALSE(gone);
  CHECK(gone.missing().reason == MissingReason::not_present);
}
