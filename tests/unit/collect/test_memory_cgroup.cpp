#include <doctest/doctest.h>

#include <unistd.h>

#include <fstream>

#include "collect/host/cgroup_locate.h"
#include "collect/host/cgroup_v1.h"
#include "collect/host/cgroup_v2.h"
#include "collect_fixtures.h"

using namespace ftdiag;
using namespace ftdiag::collect;
using testing::fixture_path;
using testing::fixture_roots;

namespace {

std::unique_ptr<MemoryCgroup> locate(std::string_view tree, int pid = 4242) {
  auto located = locate_memory_cgroup(fixture_roots(tree), pid);
  if (!located) FAIL_CHECK(located.missing().detail);
  return located ? std::move(located).value() : nullptr;
}

}  // namespace

TEST_CASE("locate_memory_cgroup: a hybrid host prefers the v1 memory hierarchy") {
  auto cgroup = locate("cgroup-v1");
  REQUIRE(cgroup);
  CHECK(cgroup->version() == 1);
  CHECK(cgroup->cgroup_path() == "/jobs/a");
  CHECK(cgroup->directory() == fixture_path("cgroup-v1/sys/fs/cgroup/memory/jobs/a"));
}

TEST_CASE("CgroupV1Memory: every field after an OOM kill") {
  auto cgroup = locate("cgroup-v1");
  REQUIRE(cgroup);
  auto r = cgroup->read();
  CHECK(r.version == 1);
  CHECK(r.path == "/jobs/a");
  CHECK(r.usage == Fact<std::uint64_t>(104783872ULL));
  REQUIRE(r.limit);
  CHECK(r.limit.value() == std::optional<std::uint64_t>(104857600ULL));
  CHECK(r.peak == Fact<std::uint64_t>(104857600ULL));
  CHECK(r.max_events == Fact<std::uint64_t>(463ULL));
  CHECK(r.oom_kill == Fact<std::uint64_t>(1ULL));
  REQUIRE_FALSE(r.oom_events);
  CHECK(r.oom_events.missing().reason == MissingReason::unsupported);
  CHECK(r.under_oom == Fact<bool>(false));
  CHECK(r.anon == Fact<std::uint64_t>(104525824ULL));
  CHECK(r.file == Fact<std::uint64_t>(4096ULL));
  CHECK(r.shmem == Fact<std::uint64_t>(0ULL));
  CHECK(r.swap == Fact<std::uint64_t>(0ULL));
}

TEST_CASE("CgroupV1Memory: a pre-4.13 kernel without oom_kill, unlimited, removed files") {
  auto dir = std::filesystem::temp_directory_path() / ("ftdiag-v1-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "memory.oom_control") << "oom_kill_disable 1\nunder_oom 1\n";
  std::ofstream(dir / "memory.limit_in_bytes") << "9223372036854771712\n";
  std::ofstream(dir / "memory.stat") << "cache 4096\nrss 8192\nshmem 0\n";
  auto r = CgroupV1Memory(dir, "/old").read();
  REQUIRE_FALSE(r.oom_kill);
  CHECK(r.oom_kill.missing().reason == MissingReason::unsupported);
  CHECK(r.under_oom == Fact<bool>(true));
  REQUIRE(r.limit);
  CHECK_FALSE(r.limit.value().has_value());  // unlimited
  CHECK(r.anon == Fact<std::uint64_t>(8192ULL));  // no total_* keys: the local ones
  REQUIRE_FALSE(r.swap);
  CHECK(r.swap.missing().reason == MissingReason::unsupported);
  REQUIRE_FALSE(r.usage);
  CHECK(r.usage.missing().reason == MissingReason::not_present);
  std::filesystem::remove_all(dir);
}

TEST_CASE("locate_memory_cgroup + CgroupV2Memory: a pure v2 host after two OOM kills") {
  auto cgroup = locate("cgroup-v2");
  REQUIRE(cgroup);
  CHECK(cgroup->version() == 2);
  CHECK(cgroup->directory() == fixture_path("cgroup-v2/sys/fs/cgroup/user.slice/job.scope"));
  auto r = cgroup->read();
  CHECK(r.version == 2);
  CHECK(r.path == "/user.slice/job.scope");
  CHECK(r.usage == Fact<std::uint64_t>(17163091968ULL));
  REQUIRE(r.limit);
  CHECK(r.limit.value() == std::optional<std::uint64_t>(17179869184ULL));
  CHECK(r.peak == Fact<std::uint64_t>(17179869184ULL));
  CHECK(r.oom_events == Fact<std::uint64_t>(4ULL));
  CHECK(r.oom_kill == Fact<std::uint64_t>(2ULL));
  CHECK(r.max_events == Fact<std::uint64_t>(1873ULL));
  CHECK(r.swap == Fact<std::uint64_t>(0ULL));
  CHECK(r.anon == Fact<std::uint64_t>(16508391424ULL));
  CHECK(r.file == Fact<std::uint64_t>(520093696ULL));
  CHECK(r.shmem == Fact<std::uint64_t>(268435456ULL));
  REQUIRE_FALSE(r.under_oom);
  CHECK(r.under_oom.missing().reason == MissingReason::unsupported);
}

TEST_CASE("CgroupV2Memory: a 5.15 kernel has no memory.peak") {
  auto cgroup = locate("cgroup-v2-no-peak");
  REQUIRE(cgroup);
  auto r = cgroup->read();
  REQUIRE_FALSE(r.peak);
  CHECK(r.peak.missing().reason == MissingReason::not_present);
  CHECK(r.peak.missing().detail.find("5.19") != std::string::npos);
  REQUIRE(r.limit);
  CHECK_FALSE(r.limit.value().has_value());  // "max"
  CHECK(r.oom_kill == Fact<std::uint64_t>(0ULL));
  CHECK(r.usage == Fact<std::uint64_t>(2147483648ULL));
}

TEST_CASE("locate_memory_cgroup: a container whose cgroup mount shows a subtree") {
  auto cgroup = locate("cgroup-v2-container");
  REQUIRE(cgroup);
  CHECK(cgroup->version() == 2);
  CHECK(cgroup->cgroup_path().ends_with(".scope/trainer"));
  CHECK(cgroup->directory() == fixture_path("cgroup-v2-container/sys/fs/cgroup/trainer"));
  auto r = cgroup->read();
  CHECK(r.peak == Fact<std::uint64_t>(12884901888ULL));
  REQUIRE(r.limit);
  CHECK_FALSE(r.limit.value().has_value());

  // A process outside the mounted subtree cannot be mapped.
  auto outside = locate_memory_cgroup(fixture_roots("cgroup-v2-container"), 4300);
  REQUIRE_FALSE(outside);
  CHECK(outside.missing().reason == MissingReason::not_present);
  CHECK(outside.missing().detail.find("sshd.service") != std::string::npos);
}

TEST_CASE("locate_memory_cgroup: no memory controller, no process, no cgroup directory") {
  auto none = locate_memory_cgroup(fixture_roots("cgroup-v2-no-memory"), 4242);
  REQUIRE_FALSE(none);
  CHECK(none.missing().reason == MissingReason::not_present);
  CHECK(none.missing().detail.find("no mounted memory controller") != std::string::npos);

  auto gone = locate_memory_cgroup(fixture_roots("cgroup-v2"), 999999);
  REQUIRE_FALSE(gone);
  CHECK(gone.missing().reason == MissingReason::not_present);

  // The cgroup directory was removed after the process exited.
  auto removed = locate_memory_cgroup(fixture_roots("cgroup-v2-container"), 4301);
  REQUIRE_FALSE(removed);
  CHECK(removed.missing().reason == MissingReason::not_present);
  CHECK(removed.missing().detail.find("does not exist") != std::string::npos);

  // A directory without memory files (controller not enabled for it) reads
  // as Missing fields, never zeros.
  auto bare = locate_memory_cgroup(fixture_roots("cgroup-v2-container"), 1);
  REQUIRE(bare);
  auto usage = bare.value()->read().usage;
  REQUIRE_FALSE(usage);
  CHECK(usage.missing().reason == MissingReason::not_present);
}

TEST_CASE("locate_memory_cgroup: the live machine") {
  auto live = locate_memory_cgroup(SystemRoots{}, static_cast<int>(::getpid()));
  if (!live) {
    // Hosts without a mounted memory controller, or sandboxes hiding /proc.
    MESSAGE("no live memory cgroup: " << live.missing().detail);
    CHECK((live.missing().reason == MissingReason::not_present ||
           live.missing().reason == MissingReason::permission_denied));
    return;
  }
  auto r = live.value()->read();
  CHECK((r.version == 1 || r.version == 2));
  CHECK(r.version == live.value()->version());
  if (r.usage) CHECK(*r.usage > 0);
  else CHECK(r.usage.missing().reason != MissingReason::unparseable);
  if (!r.limit) CHECK(r.limit.missing().reason != MissingReason::unparseable);
  if (r.peak) CHECK(*r.peak > 0);
  CHECK((r.anon || r.anon.missing().reason != MissingReason::unparseable));
}
