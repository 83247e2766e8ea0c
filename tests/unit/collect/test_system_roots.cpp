#include <doctest/doctest.h>

#include "collect/system_roots.h"

using ftdiag::collect::SystemRoots;

TEST_CASE("SystemRoots: the default root leaves absolute paths as they are") {
  CHECK(SystemRoots{}.path("/proc/123/status") == "/proc/123/status");
  CHECK(SystemRoots{}.path("/sys/fs/cgroup") == "/sys/fs/cgroup");
}

TEST_CASE("SystemRoots: a fixture root is joined, never replaced") {
  SystemRoots roots{"/tmp/fixture"};
  CHECK(roots.path("/proc/self/mountinfo") == "/tmp/fixture/proc/self/mountinfo");
  CHECK(roots.path("//dev/shm") == "/tmp/fixture/dev/shm");
  CHECK(roots.path("proc/meminfo") == "/tmp/fixture/proc/meminfo");
}
