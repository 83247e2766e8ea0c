#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "collect/host/process_list.h"
#include "collect_fixtures.h"

using namespace ftdiag;
using namespace ftdiag::collect;
using testing::fixture_roots;

namespace {

std::vector<int> pids_of(const std::vector<parse::ProcStat>& stats) {
  std::vector<int> pids;
  for (const auto& s : stats) pids.push_back(s.pid);
  return pids;
}

}  // namespace

TEST_CASE("list_pids: numeric entries only, ascending") {
  auto pids = list_pids(fixture_roots("process-tree"));
  REQUIRE(pids);
  CHECK(*pids == std::vector<int>{1, 2, 100, 200, 201, 202, 203, 204, 205, 300});
  auto none = list_pids(fixture_roots("no-such-tree"));
  REQUIRE_FALSE(none);
  CHECK(none.missing().reason == MissingReason::not_present);
}

TEST_CASE("find_descendants: a torchrun job, breadth first, vanished entries skipped") {
  auto roots = fixture_roots("process-tree");
  auto job = find_descendants(roots, 200);
  CHECK(pids_of(job) == std::vector<int>{201, 202, 203, 204});
  REQUIRE(job.size() == 4);
  CHECK(job[1].comm == "python3) S 1 (x");
  CHECK(job[3].state == 'Z');
  CHECK(pids_of(find_descendants(roots, 100)) == std::vector<int>{200, 201, 202, 203, 204});
  CHECK(find_descendants(roots, 203).empty());
  CHECK(find_descendants(roots, 424242).empty());
  CHECK(find_descendants(fixture_roots("no-such-tree"), 1).empty());
}

TEST_CASE("find_descendants: a live child and grandchild of this test") {
  // ready: the child says the tree exists (a handshake, not a sleep).
  // hold: both descendants block reading it and exit on EOF when we close it,
  // so nothing outlives the test even if an assertion fails first.
  int ready[2], hold[2];
  REQUIRE(::pipe(ready) == 0);
  REQUIRE(::pipe(hold) == 0);
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(ready[0]);
    ::close(hold[1]);
    char byte = 'r';
    if (::fork() != 0) (void)!::write(ready[1], &byte, 1);
    ::close(ready[1]);
    (void)!::read(hold[0], &byte, 1);
    ::_exit(0);
  }
  ::close(ready[1]);
  ::close(hold[0]);
  char byte = 0;
  bool tree_ready = ::read(ready[0], &byte, 1) == 1;
  ::close(ready[0]);

  auto found = find_descendants(SystemRoots{}, static_cast<int>(::getpid()));
  ::close(hold[1]);
  int status = 0;
  ::waitpid(child, &status, 0);

  REQUIRE(tree_ready);
  auto it = std::find_if(found.begin(), found.end(), [&](const parse::ProcStat& s) { return s.pid == child; });
  REQUIRE(it != found.end());
  CHECK(it->ppid == ::getpid());
  CHECK(std::any_of(found.begin(), found.end(), [&](const parse::ProcStat& s) { return s.ppid == child; }));
  CHECK(WIFEXITED(status));
}
