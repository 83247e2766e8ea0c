#include <doctest/doctest.h>

#include <unistd.h>

#include "collect/host/proc_status.h"
#include "collect_fixtures.h"

using namespace ftdiag;
using namespace ftdiag::collect;
using testing::fixture_roots;

TEST_CASE("read_proc_status: fixture tree and a vanished process") {
  auto roots = fixture_roots("cgroup-v1");
  auto status = read_proc_status(roots, 4242);
  REQUIRE(status);
  CHECK(status->name == "python3");
  auto gone = read_proc_status(roots, 999999);
  REQUIRE_FALSE(gone);
  CHECK(gone.missing().reason == MissingReason::not_present);
  CHECK(gone.missing().detail.find("999999/status") != std::string::npos);
}

TEST_CASE("read_proc_status: this test process, live") {
  auto status = read_proc_status(SystemRoots{}, static_cast<int>(::getpid()));
  REQUIRE(status);
  CHECK(status->tgid == ::getpid());
  CHECK(status->ppid == ::getppid());
  CHECK(status->state == 'R');
  REQUIRE(status->vm_rss.has_value());
  CHECK(*status->vm_rss > 0);
  CHECK(*status->vm_rss % 1024 == 0);
  REQUIRE_FALSE(status->nspid.empty());
  CHECK(status->nspid.back() == ::getpid());  // innermost level is the pid we see ourselves as
}
