#include <doctest/doctest.h>

#include "collect/host/meminfo.h"
#include "collect_fixtures.h"

using namespace ftdiag;
using namespace ftdiag::collect;
using testing::fixture_roots;

TEST_CASE("read_meminfo: fixture tree, missing file, and the live machine") {
  auto fixture = read_meminfo(fixture_roots("cgroup-v1"));
  REQUIRE(fixture);
  CHECK(fixture->mem_total.has_value());

  auto missing = read_meminfo(fixture_roots("cgroup-v2"));
  REQUIRE_FALSE(missing);
  CHECK(missing.missing().reason == MissingReason::not_present);

  auto live = read_meminfo(SystemRoots{});
  REQUIRE(live);
  REQUIRE(live->mem_total.has_value());
  REQUIRE(live->mem_free.has_value());
  CHECK(*live->mem_total > 0);
  CHECK(*live->mem_free <= *live->mem_total);
}
