#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>

#include "collect/host/mountinfo.h"
#include "collect/host/proc_cgroup.h"
#include "collect_fixtures.h"

using namespace ftdiag;
using namespace ftdiag::collect;

TEST_CASE("read_mountinfo and read_proc_cgroup: live machine") {
  auto mounts = read_mountinfo(SystemRoots{});
  REQUIRE(mounts);
  CHECK(std::any_of(mounts->begin(), mounts->end(),
                    [](const parse::MountEntry& m) { return m.mount_point == "/"; }));
  auto groups = read_proc_cgroup(SystemRoots{}, static_cast<int>(::getpid()));
  REQUIRE(groups);
  CHECK_FALSE(groups->empty());
}
