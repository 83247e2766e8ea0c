// The lines of an OOM report, one parser each (log-formats.md §1.2). Each
// takes a message without its prefix and says nullopt when the line is not
// its kind. The report assembler (kernel_oom_report.h) puts them together.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parse/kernel/kernel_log.h"

namespace ftdiag::parse::detail {

// "python3 invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0"
struct OomHeader {
  std::string comm;
  std::string gfp_mask;  // as printed: "0xcc0(GFP_KERNEL)"
  std::optional<int> order, oom_score_adj;
};
std::optional<OomHeader> parse_oom_header(std::string_view message);

// "CPU: 1 UID: 0 PID: 5165 Comm: python3 Not tainted ..." (and "Pid: N, comm: c" before 3.10)
struct DumpBanner {
  std::optional<int> cpu;
  int pid = 0;
  std::string comm;
};
std::optional<DumpBanner> parse_dump_banner(std::string_view message);

// "memory: usage 102400kB, limit 102400kB, failcnt 446"
struct MemcgUsage {
  std::uint64_t usage_kb = 0, limit_kb = 0, failcnt = 0;
};
std::optional<MemcgUsage> parse_memcg_usage(std::string_view message);

// "Task in /a killed as a result of limit of /b" (before 4.19)
struct TaskInLimit {
  std::string task_memcg, limit_of;
};
std::optional<TaskInLimit> parse_task_in_limit(std::string_view message);

// "Memory cgroup stats for /jobs/a41c/oomcap:" (the first one names the OOM cgroup)
std::optional<std::string> parse_stats_memcg(std::string_view message);

// "sed cpuset=/ mems_allowed=0-1" (the header's second line before 4.19)
struct CpusetLine {
  std::string comm, cpuset, mems_allowed;
};
std::optional<CpusetLine> parse_cpuset_line(std::string_view message);

// "oom-kill:constraint=...,task=<comm>,pid=N,uid=N" (4.19+). A line cut
// short (a paste, a terminal) before its ",uid=" still says an OOM kill was
// chosen, and its constraint; the victim's pid is then unknown (a pid cut
// mid-number would name the wrong task).
struct OomSummary {
  std::string constraint, nodemask, cpuset, mems_allowed, oom_memcg, task_memcg, task;
  bool global_oom = false;
  std::optional<int> pid;
  std::optional<int> uid;
};
std::optional<OomSummary> parse_oom_summary(std::string_view message);

// The kill line of every generation: fills pid, comm, origin, the kB
// fields, uid and oom_score_adj of `kill`.
bool parse_kill_line(std::string_view message, OomKill& kill);

// Early 5.4 kernels printed pgtables in bytes labelled kB (fixed in 5.5):
// read as bytes when the victim's task-table row says so, or when it could
// not be kB (page tables are about 1/512 of the address space they map,
// never an eighth of it).
void correct_pgtables_units(OomKill& kill);

// "Out of memory: Kill process N (c) score S or sacrifice child" (before 5.1)
struct SacrificeLine {
  std::string origin, comm;
  int pid = 0;
  std::optional<unsigned> score;
};
std::optional<SacrificeLine> parse_sacrifice_line(std::string_view message);

// "Tasks in /path are going to be killed due to memory.oom.group set"
std::optional<std::string> parse_oom_group(std::string_view message);

// "oom_reaper: reaped process N (c), now anon-rss:..." -> N
std::optional<int> parse_reaped_pid(std::string_view message);

// --- the task table --------------------------------------------------------

enum class TaskColumn { uid, tgid, total_vm, rss, rss_anon, rss_file, rss_shmem, pgtables_bytes, swapents, oom_score_adj, other };

// The numeric columns after "[ pid ]", from the table's header line.
struct TaskTableLayout {
  std::vector<TaskColumn> columns;
};
std::optional<TaskTableLayout> parse_task_table_header(std::string_view message);

// "[   5165]     0  5165    29751 ... python3". Without a layout the numeric
// columns are counted and named by the layouts of known kernels.
std::optional<OomTask> parse_task_row(std::string_view message, const TaskTableLayout* layout);

}  // namespace ftdiag::parse::detail
