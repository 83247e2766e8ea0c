// OOM reports of older kernels and the report assembly: hand-assembled
// fixtures in the formats of log-formats.md §1.2 (tests/fixtures/kernel-log).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "kernel_fixtures.h"

using namespace ftdiag::parse;
using namespace ftdiag::parse::testing;

TEST_CASE("oom: RHEL 7 (3.10) memcg report in /var/log/messages") {
  auto kills = scan_for<OomKill>(kernel_fixture("rhel7-3.10-memcg.syslog.txt"));
  REQUIRE(kills.size() == 1);
  const OomKill& kill = kills.front();
  CHECK(kill.pid == 48213);
  CHECK(kill.comm == "python");
  CHECK(kill.origin == "Memory cgroup out of memory");
  CHECK(kill.score == 998u);
  CHECK(kill.total_vm_kb == 89524092u);
  CHECK(kill.anon_rss_kb == 66873524u);
  CHECK(kill.file_rss_kb == 4800u);
  CHECK_FALSE(kill.shmem_rss_kb);
  CHECK_FALSE(kill.pgtables_kb);
  CHECK(kill.task_memcg == "/slurm/uid_1001/job_4242/step_0/task_0");
  CHECK(kill.limit_of == "/slurm/uid_1001/job_4242");
  CHECK(kill.constraint.empty());
  CHECK(kill.oom_memcg.empty());
  CHECK(kill.cpuset == "/");
  CHECK(kill.mems_allowed == "0-1");
  CHECK(kill.trigger_comm == "python");
  CHECK(kill.trigger_pid == 48213);
  CHECK(kill.gfp_mask == "0xd0");
  CHECK(kill.usage_kb == 67108864u);
  CHECK(kill.limit_kb == 67108864u);
  CHECK(kill.failcnt == 9921u);
  REQUIRE(kill.tasks.size() == 3);
  CHECK(kill.tasks[1].pid == 48213);
  CHECK(kill.tasks[1].rss_pages == 16719581u);
  CHECK(kill.tasks[1].oom_score_adj == 0);
  CHECK_FALSE(kill.tasks[1].pgtables_bytes);  // nr_ptes is not kept
  CHECK(kill.tasks[2].name == "pt_data_worker");
}

TEST_CASE("oom: 4.15 global OOM, the sacrificed child and the reaper") {
  auto kills = scan_for<OomKill>(kernel_fixture("ubuntu-4.15-global.dmesg.txt"));
  REQUIRE(kills.size() == 1);
  const OomKill& kill = kills.front();
  CHECK(kill.pid == 91850);  // the child, not the chosen parent 91822
  CHECK(kill.comm == "pt_data_worker");
  CHECK(kill.origin == "Out of memory");
  CHECK(kill.score == 948u);
  CHECK(kill.shmem_rss_kb == 0u);
  CHECK(kill.reaped);
  CHECK(kill.trigger_comm == "python3");
  CHECK(kill.trigger_pid == 91822);
  CHECK(kill.gfp_mask == "0x14280ca(GFP_HIGHUSER_MOVABLE|__GFP_ZERO)");
  CHECK(kill.cpuset == "/");
  CHECK(kill.mems_allowed == "0-1");
  CHECK_FALSE(kill.usage_kb);
  REQUIRE(kill.tasks.size() == 3);
  CHECK(kill.tasks[0].oom_score_adj == -1000);
  CHECK(kill.tasks[0].name == "systemd-udevd");
  CHECK(kill.tasks[1].pgtables_bytes == 1001275392u);
  CHECK(kill.tasks[1].total_vm_pages == 130201543u);
}

TEST_CASE("oom: early 5.4 printed pgtables bytes labelled kB") {
  auto kills = scan_for<OomKill>(kernel_fixture("ubuntu-5.4-pgtables-bytes.dmesg.txt"));
  REQUIRE(kills.size() == 1);
  CHECK(kills[0].pgtables_kb == 1240u);
  CHECK(kills[0].oom_memcg == "/docker/34186d9b1e2a");
  CHECK(kills[0].cpuset == "34186d9b1e2a");
  CHECK(kills[0].tasks.size() == 2);

  SUBCASE("without the table, by size") {
    auto bare = scan_for<OomKill>(
        "Memory cgroup out of memory: Killed process 20211 (java) total-vm:1400000kB, anon-rss:1040000kB, "
        "file-rss:8000kB, shmem-rss:0kB, UID:0 pgtables:1269760kB oom_score_adj:0\n");
    REQUIRE(bare.size() == 1);
    CHECK(bare[0].pgtables_kb == 1240u);
  }
  SUBCASE("a right value stays") {
    auto fine = scan_for<OomKill>(
        "Out of memory: Killed process 473206 (doxygen) total-vm:30290680kB, anon-rss:9234320kB, file-rss:4kB, "
        "shmem-rss:0kB, UID:504 pgtables:59264kB oom_score_adj:0\n");
    REQUIRE(fine.size() == 1);
    CHECK(fine[0].pgtables_kb == 59264u);
  }
}

TEST_CASE("oom: 2.6.32 (RHEL 6) lines") {
  auto kills = scan_for<OomKill>(kernel_fixture("rhel6-2.6.32.messages.txt"));
  REQUIRE(kills.size() == 1);
  const OomKill& kill = kills.front();
  CHECK(kill.pid == 215701);
  CHECK(kill.comm == "java");
  CHECK(kill.uid == 679);
  CHECK(kill.origin == "Out of memory");
  CHECK(kill.score == 902u);
  CHECK(kill.total_vm_kb == 11017300u);
  CHECK(kill.anon_rss_kb == 7152432u);
  CHECK(kill.file_rss_kb == 1232u);
  CHECK(kill.trigger_pid == 215701);  // "Pid: 215701, comm: java"
  REQUIRE(kill.tasks.size() == 2);
  CHECK(kill.tasks[1].pid == 215701);
  CHECK(kill.tasks[1].tgid == 215701);
  CHECK(kill.tasks[1].uid == 679);
  CHECK(kill.tasks[1].rss_pages == 1788418u);
}

TEST_CASE("oom: a rate-limited burst: kills without a report are still kills") {
  auto kills = scan_for<OomKill>(kernel_fixture("burst-rate-limited.dmesg.txt"));
  REQUIRE(kills.size() == 4);
  CHECK(kills[0].pid == 31000);
  CHECK(kills[0].trigger_pid == 31000);
  CHECK(kills[0].oom_memcg == "/system.slice/train.service");
  CHECK(kills[0].tasks.size() == 3);
  for (std::size_t i = 1; i < kills.size(); ++i) {
    CAPTURE(i);
    CHECK(kills[i].comm == "pt_data_worker");
    CHECK(kills[i].origin == "Memory cgroup out of memory");
    CHECK(kills[i].trigger_comm.empty());
    CHECK(kills[i].oom_memcg.empty());
    CHECK(kills[i].tasks.empty());
    CHECK(kills[i].anon_rss_kb == 1580000u);
  }
  CHECK(kills[3].pid == 31044);
}

TEST_CASE("oom: Kubernetes pod on cgroup v2, stats block as dmesg continuation lines") {
  const std::string text = kernel_fixture("k8s-v2-5.15.dmesg.txt");
  auto lines = split_kernel_log(text);
  bool found = false;
  for (const auto& line : lines) {
    if (line.message == "kernel_stack 1638400") {
      found = true;
      CHECK(line.stamp.monotonic_us == 2993708140);
    }
  }
  CHECK(found);
  auto kills = events_of<OomKill>(scan_kernel_lines(lines));
  REQUIRE(kills.size() == 1);
  const OomKill& kill = kills.front();
  const std::string pod = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod94eb36cd_29e1_478b_b365_4cb5dfc7d6fb.slice";
  const std::string container = "cri-containerd-46b3e0a4df44b752b841aecca454e6e78995d567912a84950390bae6f6777a63.scope";
  CHECK(kill.pid == 22609);
  CHECK(kill.comm == "pt_main_thread");
  CHECK(kill.oom_memcg == pod);
  CHECK(kill.task_memcg == pod + "/" + container);
  CHECK(kill.cpuset == container);
  CHECK(kill.limit_kb == 4194304u);
  CHECK(kill.oom_score_adj == 936);
  REQUIRE(kill.tasks.size() == 2);
  CHECK(kill.tasks[0].uid == 65535);
  CHECK(kill.tasks[0].oom_score_adj == -998);
  CHECK(kill.tasks[0].name == "pause");
}

TEST_CASE("oom: memory.oom.group, stats block as /dev/kmsg \\x0a escapes") {
  const std::string text = kernel_fixture("v2-oom-group.kmsg.txt");
  auto lines = split_kernel_log(text);
  int stats_lines = 0;
  for (const auto& line : lines) {
    if (line.stamp.sequence == 9006u) ++stats_lines;
    CHECK(line.message.find("SUBSYSTEM") == std::string::npos);
  }
  CHECK(stats_lines == 5);
  auto kills = events_of<OomKill>(scan_kernel_lines(lines));
  REQUIRE(kills.size() == 3);
  CHECK(kills[0].pid == 40001);
  CHECK(kills[1].pid == 40002);
  CHECK(kills[2].pid == 40003);
  for (const auto& kill : kills) {
    CAPTURE(kill.pid);
    CHECK(kill.oom_group);
    CHECK(kill.oom_memcg == "/job.slice/train-7.scope");
    CHECK(kill.trigger_pid == 40001);
    CHECK(kill.tasks.size() == 3);
  }
}

TEST_CASE("oom: global OOM of 6.1 with printk caller tags and the reaper on another CPU") {
  auto events = scan_text(kernel_fixture("global-6.1-caller.dmesg.txt"));
  auto kills = events_of<OomKill>(events);
  REQUIRE(kills.size() == 1);
  const OomKill& kill = kills.front();
  CHECK(kill.pid == 473206);
  CHECK(kill.origin == "Out of memory");
  CHECK(kill.constraint == "CONSTRAINT_NONE");
  CHECK(kill.global_oom);
  CHECK(kill.oom_memcg.empty());
  CHECK(kill.task_memcg == "/user.slice/user-504.slice/session-2.scope");
  CHECK(kill.trigger_pid == 473206);
  CHECK(kill.gfp_mask == "0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO)");
  CHECK(kill.stamp.caller == "T473206");
  CHECK(kill.reaped);
  REQUIRE(kill.tasks.size() == 2);
  CHECK(kill.tasks[1].tgid == 473206);
  CHECK(kill.tasks[1].swap_entries == 5225427u);
  CHECK(kill.tasks[0].oom_score_adj == -250);
}

TEST_CASE("oom: interleaved reports of two memcgs do not mix") {
  auto kills = scan_for<OomKill>(kernel_fixture("interleaved-two-memcgs.dmesg.txt"));
  REQUIRE(kills.size() == 2);
  const OomKill& a = kills[0];
  const OomKill& b = kills[1];
  CHECK(a.pid == 1001);
  CHECK(a.oom_memcg == "/jobs/a");
  CHECK(a.trigger_comm == "python3");
  CHECK(a.trigger_pid == 1001);
  CHECK(a.limit_kb == 2097152u);
  REQUIRE(a.tasks.size() == 2);
  CHECK(a.tasks[1].name == "pt_data_worker");
  CHECK(b.pid == 2005);
  CHECK(b.oom_memcg == "/jobs/b");
  CHECK(b.trigger_comm == "torchrun");
  CHECK(b.trigger_pid == 2001);
  CHECK(b.limit_kb == 1048576u);
  REQUIRE(b.tasks.size() == 2);
  CHECK(b.tasks[0].name == "torchrun");
  CHECK(b.tasks[1].rss_anon_pages == 248000u);
}

TEST_CASE("oom: hostile names in the summary and the kill line") {
  auto kills = scan_for<OomKill>(
      "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=0-1,3,cpuset=/,mems_allowed=0-1,3,oom_memcg=/a,task_memcg=/a/b,"
      "task=x,pid=1,uid=2 ),pid=77,uid=1000\n"
      "Memory cgroup out of memory: Killed process 77 (x,pid=1,uid=2 ) total-vm:1kB, anon-rss:2kB, file-rss:3kB, "
      "shmem-rss:4kB, UID:1000 pgtables:5kB oom_score_adj:-17\n");
  REQUIRE(kills.size() == 1);
  CHECK(kills[0].pid == 77);
  CHECK(kills[0].comm == "x,pid=1,uid=2 ");
  CHECK(kills[0].mems_allowed == "0-1,3");
  CHECK(kills[0].oom_memcg == "/a");
  CHECK(kills[0].task_memcg == "/a/b");
  CHECK(kills[0].shmem_rss_kb == 4u);
  CHECK(kills[0].oom_score_adj == -17);
}

namespace {

// A memcg report of 5.15 as a user pastes it: the task table and the
// oom-kill summary, cut before the "Killed process" line.
constexpr std::string_view kReportCutBeforeItsKill =
    "[Wed May  8 08:47:30 2024] python invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0\n"
    "[Wed May  8 08:47:30 2024] CPU: 12 PID: 4012 Comm: python Not tainted 5.15.0-105-generic #115-Ubuntu\n"
    "[Wed May  8 08:47:30 2024] memory: usage 67108864kB, limit 67108864kB, failcnt 1234\n"
    "[Wed May  8 08:47:30 2024] Tasks state (memory values in pages):\n"
    "[Wed May  8 08:47:30 2024] [  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name\n"
    "[Wed May  8 08:47:30 2024] [   4011]  1000  4011 20132312  8012345  70000000        0             0 python\n"
    "[Wed May  8 08:47:30 2024] [   4012]  1000  4012 20132312  8512345  72000000        0             0 python\n"
    "[Wed May  8 08:47:30 2024] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,"
    "oom_memcg=/slurm/uid_1000/job_123,task_memcg=/slurm/uid_1000/job_123/step_0,task=python,pid=4012,uid=1000\n";

}  // namespace

TEST_CASE("oom: a report cut short after its oom-kill summary still records the kill the summary names") {
  auto kills = scan_for<OomKill>(kReportCutBeforeItsKill);
  REQUIRE(kills.size() == 1);
  const OomKill& kill = kills.front();
  CHECK(kill.kill_line_missing);
  CHECK(kill.pid == 4012);
  CHECK(kill.comm == "python");
  CHECK(kill.constraint == "CONSTRAINT_MEMCG");
  CHECK(kill.origin == "Memory cgroup out of memory");
  CHECK(kill.oom_memcg == "/slurm/uid_1000/job_123");
  CHECK(kill.limit_kb == 67108864u);
  CHECK(kill.tasks.size() == 2);
  CHECK(kill.line_number == 8);
  CHECK_FALSE(kill.anon_rss_kb);  // printed only on the kill line
}

TEST_CASE("oom: a whole report is not marked cut short, and a cut one before a whole one gives both kills") {
  std::string text(kReportCutBeforeItsKill);
  auto whole = scan_for<OomKill>(text + "[Wed May  8 08:47:30 2024] Memory cgroup out of memory: Killed process 4012 (python) "
                                        "total-vm:80529248kB, anon-rss:34049380kB, file-rss:0kB, shmem-rss:0kB, UID:1000 "
                                        "pgtables:70312kB oom_score_adj:0\n");
  REQUIRE(whole.size() == 1);
  CHECK_FALSE(whole.front().kill_line_missing);
  CHECK(whole.front().anon_rss_kb == 34049380u);

  std::string second(kReportCutBeforeItsKill);
  for (std::string_view from : {"4012", "08:47:30"}) {
    for (std::size_t at; (at = second.find(from)) != std::string::npos;) second.replace(at, from.size(), from == "4012" ? "4011" : "08:52:10");
  }
  second += "[Wed May  8 08:52:10 2024] Memory cgroup out of memory: Killed process 4011 (python) total-vm:80529248kB, "
            "anon-rss:32049380kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:70312kB oom_score_adj:0\n";
  auto both = scan_for<OomKill>(text + second);
  REQUIRE(both.size() == 2);
  std::sort(both.begin(), both.end(), [](const OomKill& a, const OomKill& b) { return a.line_number < b.line_number; });
  CHECK(both[0].pid == 4012);
  CHECK(both[0].kill_line_missing);
  CHECK(both[1].pid == 4011);
  CHECK_FALSE(both[1].kill_line_missing);
}

namespace {

// The same report pasted once more briefly: the header line of the task table
// left out, and the summary cut by the paste before its ",pid=".
constexpr std::string_view kHeadlessTableAndCutSummary =
    "[17798674.374095] [ 199300]  1000 199300   101975    23897   307200      501          -998 jupyter-lab\n"
    "[17798674.374495] [ 202779]  1000 202779 274650088 243385180 1957441536     7930          -998 python\n"
    "[17798674.374519] [ 202780]  1000 202780 33475461  2529507 25161728     3314          -998 python\n"
    "[17798674.377396] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=38e6fab2,mems_allowed=0-7,o\n";

}  // namespace

TEST_CASE("oom: a summary cut before its pid names the victim the kernel's badness rule picks from the table") {
  auto kills = scan_for<OomKill>(kHeadlessTableAndCutSummary);
  REQUIRE(kills.size() == 1);
  const OomKill& kill = kills.front();
  CHECK(kill.kill_line_missing);
  CHECK(kill.victim_inferred);
  CHECK(kill.pid == 202779);
  CHECK(kill.comm == "python");
  CHECK(kill.constraint == "CONSTRAINT_MEMCG");
  CHECK(kill.origin == "Memory cgroup out of memory");
  CHECK(kill.tasks.size() == 3);
}

TEST_CASE("oom: a cut summary whose table cannot rank its rows records a kill with no victim") {
  SUBCASE("no table") {
    auto kills = scan_for<OomKill>("[5.000000] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,glob\n");
    REQUIRE(kills.size() == 1);
    CHECK(kills[0].victim_inferred);
    CHECK(kills[0].pid == 0);
    CHECK(kills[0].origin == "Out of memory");
  }
  SUBCASE("adjustments differ and no limit gives their scale") {
    auto kills = scan_for<OomKill>(
        "[5.000000] [   10]  0  10  1000  900  40960  0  0 big\n"
        "[5.000001] [   11]  0  11  1000  800  40960  0  500 adjusted\n"
        "[5.000002] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/,task=adj\n");
    REQUIRE(kills.size() == 1);
    CHECK(kills[0].pid == 0);
    CHECK(kills[0].comm == "adj");
  }
  SUBCASE("a tie") {
    auto kills = scan_for<OomKill>(
        "[5.000000] [   10]  0  10  1000  900  40960  0  0 a\n"
        "[5.000001] [   11]  0  11  1000  900  40960  0  0 b\n"
        "[5.000002] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/,task=a,pid=1\n");
    REQUIRE(kills.size() == 1);
    CHECK(kills[0].pid == 0);  // "pid=1" may be "pid=1234" cut short: never trusted without ",uid="
  }
}

TEST_CASE("oom: with the limit printed, differing adjustments are scaled as the kernel scales them") {
  // limit 4000 kB = 1000 pages: adj 500 adds 500 points, more than the 100 pages between them.
  auto kills = scan_for<OomKill>(
      "[5.000000] memory: usage 4000kB, limit 4000kB, failcnt 9\n"
      "[5.000001] [   10]  0  10  1000  900  40960  0  0 big\n"
      "[5.000002] [   11]  0  11  1000  800  40960  0  500 adjusted\n"
      "[5.000003] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/j,task_\n");
  REQUIRE(kills.size() == 1);
  CHECK(kills[0].pid == 11);
  CHECK(kills[0].comm == "adjusted");
}

TEST_CASE("oom: a report cut after its header and call trace is a kill, in a memory cgroup when the trace says so") {
  const std::string header =
      "[2612362.231458] python invoked oom-killer: gfp_mask=0x14000c0(GFP_KERNEL), nodemask=(null), order=0, oom_score_adj=829\n"
      "[2612362.231460] python cpuset=157d3ac3 mems_allowed=0-1\n"
      "[2612362.231465] CPU: 6 PID: 208253 Comm: python Tainted: P           O     4.15.15-1.el7.elrepo.x86_64 #1\n"
      "[2612362.231467] Call Trace:\n"
      "[2612362.231475]  dump_stack+0x63/0x88\n";
  auto memcg = scan_for<OomKill>(header +
                                 "[2612362.231483]  oom_kill_process+0x21c/0x430\n"
                                 "[2612362.231487]  mem_cgroup_out_of_memory+0x4b/0x80\n"
                                 "[2612362.231491]  mem_cgroup_oom_synchronize+0x2f9/0x330\n");
  REQUIRE(memcg.size() == 1);
  CHECK(memcg[0].kill_line_missing);
  CHECK(memcg[0].victim_inferred);
  CHECK(memcg[0].pid == 0);
  CHECK(memcg[0].trigger_comm == "python");
  CHECK(memcg[0].trigger_pid == 208253);
  CHECK(memcg[0].origin == "Memory cgroup out of memory");
  CHECK(memcg[0].line_number == 1);  // the header's line: the report names no other

  auto node = scan_for<OomKill>(header + "[2612362.231483]  out_of_memory+0x114/0x4a0\n");
  REQUIRE(node.size() == 1);
  CHECK(node[0].origin.empty());  // the scope is not known: nothing said which limit

  // A whole report gives its one kill, not a second one from its header.
  auto whole = scan_for<OomKill>(header + "[2612362.231487]  mem_cgroup_out_of_memory+0x4b/0x80\n"
                                          "[2612362.300000] Memory cgroup out of memory: Killed process 208253 (python) total-vm:100kB, anon-rss:50kB, file-rss:0kB, shmem-rss:0kB\n");
  REQUIRE(whole.size() == 1);
  CHECK_FALSE(whole[0].kill_line_missing);
}

TEST_CASE("oom: lines as grep -r prints them, each after its file's name, are read as the file's own") {
  auto kills = scan_for<OomKill>(
      "/var/log/kern.log:Aug 18 14:30:16 ubuntu kernel: [356972.475056] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/user.slice,task=python,\n"
      "/var/log/kern.log:Aug 18 14:30:16 ubuntu kernel: [356972.475087] Out of memory: Killed process 604639 (python) total-vm:44097664kB, anon-rss:27583492kB, file-rss:68812kB, shmem-rss:16228kB, UID:1000 pgtables:60824kB oom_\n");
  REQUIRE(kills.size() == 1);
  CHECK(kills[0].pid == 604639);
  CHECK(kills[0].anon_rss_kb == 27583492u);
  CHECK(kills[0].global_oom);
}

TEST_CASE("oom: a memory cgroup's kill line cut after its origin is a kill in a cgroup, victim unknown") {
  auto kills = scan_for<OomKill>("Memory cgroup out of memory\n");
  REQUIRE(kills.size() == 1);
  CHECK(kills[0].pid == 0);
  CHECK(kills[0].victim_inferred);
  CHECK(kills[0].origin == "Memory cgroup out of memory");
  CHECK(scan_for<OomKill>("[12.5] Memory cgroup out of memory: Killed proc\n").size() == 1);
  CHECK(scan_for<OomKill>("Out of memory\n").empty());  // too common a phrase alone
  CHECK(scan_for<OomKill>("Memory cgroup out of memory handling is documented here\n").empty());
}
