#include <doctest/doctest.h>

#include <unistd.h>

#include <string>

#include "collect/host/system_settings.h"
#include "collect_fixtures.h"

using namespace ftdiag;
using namespace ftdiag::collect;
using testing::fixture_roots;

namespace {

constexpr std::uint64_t kGiB = 1024ULL * 1024 * 1024;

template <class T>
void check_missing(const Fact<T>& fact, MissingReason reason, std::string_view in_detail) {
  REQUIRE_FALSE(fact);
  CHECK(fact.missing().reason == reason);
  CHECK_MESSAGE(fact.missing().detail.find(in_detail) != std::string::npos, fact.missing().detail);
}

// A value, or a Missing that says why: never an empty reason, never a
// kernel file this code failed to understand.
template <class T>
void check_value_or_reason(const Fact<T>& fact, const char* name) {
  if (fact) return;
  MESSAGE(name << ": " << to_string(fact.missing().reason) << ": " << fact.missing().detail);
  CHECK(!fact.missing().detail.empty());
  CHECK(fact.missing().reason != MissingReason::unparseable);
}

}  // namespace

TEST_CASE("read_system_settings: a cgroup v2 host whose user slice holds the limit") {
  auto s = read_system_settings(fixture_roots("system-settings"), 4242);
  CHECK(s.mem_total == Fact<model::Bytes>(528280692ULL * 1024));
  CHECK(s.mem_available == Fact<model::Bytes>(489770312ULL * 1024));
  CHECK(s.swap_total == Fact<model::Bytes>(8388604ULL * 1024));

  // The scope allows 128 GiB, its parent 64 GiB, user.slice "max": 64 GiB holds.
  CHECK(s.cgroup == "/user.slice/user-1000.slice/session-3.scope");
  REQUIRE(s.cgroup_limit);
  CHECK(s.cgroup_limit.value() == std::optional<model::Bytes>(64 * kGiB));

  // The fixture's dev/shm is a plain directory: statvfs reports its filesystem.
  REQUIRE(s.shm_total);
  REQUIRE(s.shm_available);
  CHECK(*s.shm_available <= *s.shm_total);

  CHECK(s.dmesg_restrict == Fact<int>(1));
  CHECK(s.core_pattern == Fact<std::string>("|/usr/share/apport/apport -p%p -s%s -c%c -d%d -P%P -u%u -g%g -- %E"));
  CHECK(s.kernel_log_readable == Fact<bool>(true));  // dev/kmsg is a readable plain file here
  CHECK(s.oom_daemons == Fact<std::vector<std::string>>(std::vector<std::string>{"earlyoom", "systemd-oomd"}));
}

TEST_CASE("read_system_settings: cgroup v1 under Slurm, an old kernel, no /dev files") {
  auto roots = fixture_roots("system-settings-v1");
  auto s = read_system_settings(roots, 5151);
  CHECK(s.mem_total == Fact<model::Bytes>(8062148ULL * 1024));
  check_missing(s.mem_available, MissingReason::not_present, "3.14");
  CHECK(s.swap_total == Fact<model::Bytes>(0));  // no swap is a value, not a missing one

  // The step and the job are unlimited; the user's level allows 32 GiB.
  CHECK(s.cgroup == "/slurm/uid_1000/job_77/step_0");
  REQUIRE(s.cgroup_limit);
  CHECK(s.cgroup_limit.value() == std::optional<model::Bytes>(32 * kGiB));

  check_missing(s.shm_total, MissingReason::not_present, "dev/shm");
  check_missing(s.shm_available, MissingReason::not_present, "dev/shm");
  check_missing(s.dmesg_restrict, MissingReason::not_present, "dmesg_restrict");
  check_missing(s.core_pattern, MissingReason::not_present, "core_pattern");
  check_missing(s.kernel_log_readable, MissingReason::not_present, "dev/kmsg");
  CHECK(s.oom_daemons == Fact<std::vector<std::string>>(std::vector<std::string>{}));

  // An ancestor with use_hierarchy 0 does not charge its children: its 1 GiB
  // does not hold for them.
  auto legacy = read_system_settings(roots, 5252);
  CHECK(legacy.cgroup == "/legacy/child");
  REQUIRE(legacy.cgroup_limit);
  CHECK_FALSE(legacy.cgroup_limit.value().has_value());
}

TEST_CASE("read_system_settings: no memory.max on any level is no limit") {
  // init.scope lacks the controller and the root's memory cannot be limited.
  auto s = read_system_settings(fixture_roots("system-settings"), 1);
  CHECK(s.cgroup == "/init.scope");
  REQUIRE(s.cgroup_limit);
  CHECK_FALSE(s.cgroup_limit.value().has_value());
}

TEST_CASE("read_system_settings: the cgroup of a process that is not there") {
  auto s = read_system_settings(fixture_roots("system-settings"), 999999);
  REQUIRE_FALSE(s.cgroup_limit);
  CHECK(s.cgroup_limit.missing().reason == MissingReason::not_present);
  CHECK(s.cgroup.empty());
  CHECK(s.mem_total);  // the rest is read all the same
}

TEST_CASE("read_system_settings: existing cgroup fixtures, limits on the cgroup itself") {
  auto v2 = read_system_settings(fixture_roots("cgroup-v2"), 4242);
  REQUIRE(v2.cgroup_limit);
  CHECK(v2.cgroup_limit.value() == std::optional<model::Bytes>(16 * kGiB));
  auto v1 = read_system_settings(fixture_roots("cgroup-v1"), 4242);
  REQUIRE(v1.cgroup_limit);
  CHECK(v1.cgroup_limit.value() == std::optional<model::Bytes>(100ULL * 1024 * 1024));
  // In a container the walk stops at the namespace root, the mount's root,
  // which holds the container's limit: 32 GiB, for a cgroup that has none
  // ("max") and for one without the memory controller (no memory.max).
  for (int pid : {4242, 1}) {
    auto container = read_system_settings(fixture_roots("cgroup-v2-container"), pid);
    REQUIRE(container.cgroup_limit);
    CHECK(container.cgroup_limit.value() == std::optional<model::Bytes>(32 * kGiB));
  }
  // An unreadable /proc/meminfo makes all three Missing with its reason.
  auto no_meminfo = read_system_settings(fixture_roots("cgroup-v2"), 4242);
  check_missing(no_meminfo.mem_total, MissingReason::not_present, "meminfo");
  check_missing(no_meminfo.swap_total, MissingReason::not_present, "meminfo");
}

TEST_CASE("read_system_settings: the live machine") {
  auto s = read_system_settings(SystemRoots{});
  check_value_or_reason(s.mem_total, "mem_total");
  check_value_or_reason(s.mem_available, "mem_available");
  check_value_or_reason(s.swap_total, "swap_total");
  check_value_or_reason(s.cgroup_limit, "cgroup_limit");
  check_value_or_reason(s.shm_total, "shm_total");
  check_value_or_reason(s.shm_available, "shm_available");
  check_value_or_reason(s.kernel_log_readable, "kernel_log_readable");
  check_value_or_reason(s.core_pattern, "core_pattern");
  check_value_or_reason(s.oom_daemons, "oom_daemons");
  REQUIRE(s.mem_total);
  CHECK(*s.mem_total > 0);
  if (s.cgroup_limit) CHECK_FALSE(s.cgroup.empty());
  if (s.shm_total && s.shm_available) CHECK(*s.shm_available <= *s.shm_total);

  // getrlimit cannot fail for these; soft never exceeds hard.
  for (const auto* limit : {&s.memlock, &s.nofile, &s.core}) {
    REQUIRE(*limit);
    const auto& l = limit->value();
    if (!l.hard) continue;  // unlimited
    REQUIRE(l.soft.has_value());  // a finite hard limit bounds the soft one
    CHECK(*l.soft <= *l.hard);
  }
  REQUIRE(s.nofile);
  CHECK(s.nofile->soft.value_or(1) > 0);

  REQUIRE(s.cpu_count);
  CHECK(*s.cpu_count > 0);
  CHECK(s.as_root == (::geteuid() == 0));
  if (s.as_root) {
    REQUIRE(s.dmesg_restrict);  // /proc/sys/kernel is world-readable; root reads it everywhere
    CHECK((*s.dmesg_restrict == 0 || *s.dmesg_restrict == 1));
    // Root passes the CAP_SYSLOG check: true, or no /dev/kmsg at all (a container).
    if (s.kernel_log_readable) CHECK(*s.kernel_log_readable);
    else CHECK(s.kernel_log_readable.missing().reason == MissingReason::not_present);
  }

  // The one-argument form is ftdiag's own process.
  auto own = read_system_settings(SystemRoots{}, static_cast<int>(::getpid()));
  CHECK(own.cgroup == s.cgroup);
  CHECK(own.cgroup_limit == s.cgroup_limit);
}
