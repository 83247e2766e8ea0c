// One live OOM record (6.18.44, memcg v1, 100 MiB limit) in every rendering
// of the kernel log: each must give the same OomKill, stamps aside.
#include <doctest/doctest.h>

#include <cstdlib>
#include <ctime>

#include "kernel_fixtures.h"

using namespace ftdiag::parse;
using namespace ftdiag::parse::testing;

namespace {

constexpr const char* renderings[] = {
    "oom-memcg-v1.dmesg.txt",
    "oom-memcg-v1.dmesg-T.txt",
    "oom-memcg-v1.dmesg-x.txt",
    "oom-memcg-v1.dmesg-r.txt",
    "oom-memcg-v1.kmsg.txt",
    "oom-memcg-v1.dmesg-iso.txt",
    "oom-memcg-v1.dmesg-J.txt",
    "oom-memcg-v1.dmesg-caller.txt",
    "oom-memcg-v1.journal-short.txt",
    "oom-memcg-v1.journal-short-precise.txt",
    "oom-memcg-v1.journal-short-iso.txt",
    "oom-memcg-v1.journal-short-monotonic.txt",
    "oom-memcg-v1.journal-json.txt",
    "oom-memcg-v1.syslog.txt",
    "oom-memcg-v1.syslog-rfc3339.txt",
};

OomKill only_kill(std::string_view name) {
  auto kills = scan_for<OomKill>(kernel_fixture(name));
  REQUIRE_MESSAGE(kills.size() == 1, name);
  return kills.front();
}

OomKill without_stamp(OomKill kill) {
  kill.stamp = {};
  kill.line_number = 0;
  return kill;
}

// The values the capture shows (log-formats.md §1.1).
void check_live_record(const OomKill& kill) {
  CHECK(kill.pid == 5165);
  CHECK(kill.comm == "python3");
  CHECK(kill.origin == "Memory cgroup out of memory");
  CHECK(kill.total_vm_kb == 119004u);
  CHECK(kill.anon_rss_kb == 101888u);
  CHECK(kill.file_rss_kb == 6300u);
  CHECK(kill.shmem_rss_kb == 0u);
  CHECK(kill.pgtables_kb == 268u);
  CHECK(kill.uid == 0);
  CHECK(kill.oom_score_adj == 0);
  CHECK_FALSE(kill.score);
  CHECK(kill.constraint == "CONSTRAINT_MEMCG");
  CHECK_FALSE(kill.global_oom);
  CHECK(kill.oom_memcg == "/jobs/a41c/oomcap");
  CHECK(kill.task_memcg == "/jobs/a41c/oomcap");
  CHECK(kill.cpuset == "/");
  CHECK(kill.mems_allowed == "0");
  CHECK(kill.limit_of.empty());
  CHECK(kill.trigger_comm == "python3");
  CHECK(kill.trigger_pid == 5165);
  CHECK(kill.gfp_mask == "0xcc0(GFP_KERNEL)");
  CHECK(kill.order == 0);
  CHECK(kill.trigger_oom_score_adj == 0);
  CHECK(kill.usage_kb == 102400u);
  CHECK(kill.limit_kb == 102400u);
  CHECK(kill.failcnt == 446u);
  REQUIRE(kill.tasks.size() == 1);
  const OomTask& task = kill.tasks.front();
  CHECK(task.pid == 5165);
  CHECK(task.uid == 0);
  CHECK(task.tgid == 5165);
  CHECK(task.total_vm_pages == 29751u);
  CHECK(task.rss_pages == 27047u);
  CHECK(task.rss_anon_pages == 25472u);
  CHECK(task.rss_file_pages == 1575u);
  CHECK(task.rss_shmem_pages == 0u);
  CHECK(task.pgtables_bytes == 274432u);
  CHECK(task.swap_entries == 0u);
  CHECK(task.oom_score_adj == 0);
  CHECK(task.name == "python3");
  CHECK_FALSE(kill.oom_group);
  CHECK_FALSE(kill.reaped);
}

}  // namespace

TEST_CASE("kernel log: the live OOM record reads the same in every rendering") {
  const OomKill reference = only_kill("oom-memcg-v1.dmesg.txt");
  check_live_record(reference);
  for (const char* name : renderings) {
    CAPTURE(name);
    const OomKill kill = only_kill(name);
    CHECK(without_stamp(kill) == without_stamp(reference));
  }
}

TEST_CASE("kernel log: the same record with CRLF line ends and a UTF-8 BOM-free Windows copy") {
  std::string text = kernel_fixture("oom-memcg-v1.dmesg.txt");
  std::string crlf;
  for (char c : text) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  auto kills = scan_for<OomKill>(crlf);
  REQUIRE(kills.size() == 1);
  check_live_record(kills.front());
}

TEST_CASE("kernel log: each rendering's stamp of the kill line") {
  SUBCASE("printk time where printed") {
    for (const char* name : {"oom-memcg-v1.dmesg.txt", "oom-memcg-v1.dmesg-x.txt", "oom-memcg-v1.dmesg-r.txt",
                             "oom-memcg-v1.kmsg.txt", "oom-memcg-v1.dmesg-J.txt", "oom-memcg-v1.journal-json.txt",
                             "oom-memcg-v1.journal-short-monotonic.txt", "oom-memcg-v1.syslog.txt"}) {
      CAPTURE(name);
      CHECK(only_kill(name).stamp.monotonic_us == 241674752);
      CHECK(only_kill(name).stamp.level.value_or(3) == 3);
    }
  }
  SUBCASE("level and sequence of /dev/kmsg") {
    const OomKill kill = only_kill("oom-memcg-v1.kmsg.txt");
    CHECK(kill.stamp.sequence == 502u);
    CHECK(kill.stamp.level == 3);
    CHECK(kill.stamp.facility == 0);
    CHECK(kill.line_number == 80);
  }
  SUBCASE("wall time with a zone") {
    // 2026-11-29T07:48:27.674752Z
    constexpr double wall = 1795938507.674752;
    CHECK(only_kill("oom-memcg-v1.dmesg-iso.txt").stamp.wall_time.value_or(0) == doctest::Approx(wall).epsilon(1e-12));
    CHECK(only_kill("oom-memcg-v1.syslog-rfc3339.txt").stamp.wall_time.value_or(0) ==
          doctest::Approx(wall).epsilon(1e-12));
    CHECK(only_kill("oom-memcg-v1.journal-short-iso.txt").stamp.wall_time.value_or(0) ==
          doctest::Approx(1795938507.0).epsilon(1e-12));
    // __REALTIME_TIMESTAMP: when journald read it, 2 ms later here
    CHECK(only_kill("oom-memcg-v1.journal-json.txt").stamp.wall_time.value_or(0) ==
          doctest::Approx(wall + 0.002).epsilon(1e-12));
  }
  SUBCASE("local wall time without a zone (dmesg -T, syslog), read in TZ") {
    const char* saved = std::getenv("TZ");
    const std::string previous = saved ? saved : "";
    ::setenv("TZ", "UTC0", 1);
    ::tzset();
    CHECK(only_kill("oom-memcg-v1.dmesg-T.txt").stamp.wall_time == 1795938507.0);
    KernelTextOptions options;
    options.year = 2026;
    auto kills = events_of<OomKill>(scan_text(kernel_fixture("oom-memcg-v1.journal-short-precise.txt"), options));
    REQUIRE(kills.size() == 1);
    CHECK(kills.front().stamp.wall_time.value_or(0) == doctest::Approx(1795938507.674752).epsilon(1e-12));
    if (saved) ::setenv("TZ", previous.c_str(), 1);
    else ::unsetenv("TZ");
    ::tzset();
  }
  SUBCASE("printk caller tag") { CHECK(only_kill("oom-memcg-v1.dmesg-caller.txt").stamp.caller == "T5165"); }
}

TEST_CASE("kernel log: the multi-process record with hostile comms, dmesg and /dev/kmsg") {
  for (const char* name : {"oom-memcg-v1-multiproc.dmesg.txt", "oom-memcg-v1-multiproc.kmsg.txt"}) {
    CAPTURE(name);
    const OomKill kill = only_kill(name);
    CHECK(kill.pid == 5932);
    CHECK(kill.comm == "a b) (c");
    CHECK(kill.anon_rss_kb == 67824u);
    CHECK(kill.oom_score_adj == 500);
    CHECK(kill.trigger_comm == "a b) (c");
    CHECK(kill.trigger_pid == 5932);
    CHECK(kill.trigger_oom_score_adj == 500);
    CHECK(kill.constraint == "CONSTRAINT_MEMCG");
    REQUIRE(kill.tasks.size() == 4);
    CHECK(kill.tasks[0].name == "python3");
    CHECK(kill.tasks[1].name == "pt_data_worker");
    CHECK(kill.tasks[2].name == "0123456789abcde");
    CHECK(kill.tasks[2].pid == 5931);
    CHECK(kill.tasks[2].rss_anon_pages == 5628u);
    CHECK(kill.tasks[3].name == "a b) (c");
    CHECK(kill.tasks[3].oom_score_adj == 500);
    CHECK(kill.tasks[3].pgtables_bytes == 204800u);
  }
}
