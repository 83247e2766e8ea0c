#include <doctest/doctest.h>

#include "collect/host/dev_shm.h"
#include "collect_fixtures.h"

using namespace ftdiag;
using namespace ftdiag::collect;
using testing::fixture_roots;

TEST_CASE("read_dev_shm_usage: the live /dev/shm") {
  auto usage = read_dev_shm_usage(SystemRoots{});
  if (!usage) {
    MESSAGE("no live /dev/shm: " << usage.missing().detail);
    CHECK(usage.missing().reason == MissingReason::not_present);
    return;
  }
  CHECK(usage->total > 0);
  CHECK(usage->used <= usage->total);
  CHECK(usage->available <= usage->total);
}

TEST_CASE("read_dev_shm_usage: goes through the roots") {
  // The fixture's dev/shm is a plain directory; statvfs reports its filesystem.
  auto usage = read_dev_shm_usage(fixture_roots("cgroup-v1"));
  REQUIRE(usage);
  CHECK(usage->used <= usage->total);
  auto missing = read_dev_shm_usage(fixture_roots("process-tree"));
  REQUIRE_FALSE(missing);
  CHECK(missing.missing().reason == MissingReason::not_present);
  CHECK(missing.missing().detail.find("dev/shm") != std::string::npos);
}
