// Puts the lines of OOM reports together: each "Killed process" line becomes
// an OomKill with what its report printed before it. Reports of different
// cgroups may interleave (two CPUs, two memcgs), so each line goes to the
// open report it fits: by printk caller tag when printed, by the memcg path,
// the victim's pid and the report's stage otherwise.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "parse/kernel/kernel_log.h"
#include "parse/kernel/kernel_oom.h"
#include "parse/kernel/kernel_stream.h"

namespace ftdiag::parse::detail {

class OomReportAssembler {
 public:
  // Reads `line` (the index-th of its log) when it belongs to an OOM
  // report; true when it did. Kills are added to `events`, and a later
  // oom_reaper or memory.oom.group line may update one there while it is kept.
  bool offer(const KernelLine& line, std::size_t index, KernelEventStore& events);

  // The end of the log: a report cut short after its "oom-kill:" summary,
  // before its kill line, still records the kill the summary names; one cut
  // after its header, a kill whose victim the table names or none does.
  void finish(KernelEventStore& events);

  // Whether a line that only matters inside a report (a task-table row, a
  // "CPU: .. PID:" banner) could be one now.
  bool any_open() const { return !open_.empty(); }

 private:
  struct Report {
    std::uint64_t id = 0;
    OomKill context;       // what the report printed before its kill
    std::string caller;    // printk caller tag of its lines, when printed
    std::string stats_memcg;
    std::optional<TaskTableLayout> layout;
    std::optional<SacrificeLine> sacrifice;
    bool summary_seen = false;       // its "oom-kill:" line, whole or cut
    std::optional<int> summary_pid;  // the victim it names, when not cut off
    bool headless_table = false;     // task rows printed (pasted) without their header line
    bool memcg_call_trace = false;   // the header's call trace passed mem_cgroup_out_of_memory
    std::string summary_task;       // the victim's comm, as the summary names it
    KernelStamp summary_stamp;      // of the summary line
    std::uint64_t summary_line_number = 0;
    KernelStamp header_stamp;       // of the "invoked oom-killer" line, for a report cut before its summary
    std::uint64_t header_line_number = 0;
    std::string summary_text;
    bool has_header = false, has_banner = false, has_usage = false, has_task_in = false, has_cpuset = false;
    bool table_done = false;
    std::size_t kills = 0;
    std::size_t first_kill_event = 0;
    std::size_t last_index = 0;
  };

  template <typename Fits>
  Report* route(const KernelLine& line, Fits fits);
  Report& open_report(const KernelLine& line, std::size_t index);
  void forget_stale(std::size_t index, KernelEventStore& events);
  void add_kill_of_summary(Report& report, KernelEventStore& events, bool log_ended);

  bool read_report_line(const KernelLine& line, std::size_t index);
  bool read_kill(const KernelLine& line, std::size_t index, KernelEventStore& events);
  bool read_oom_group(const KernelLine& line, KernelEventStore& events);
  bool read_reaped(const KernelLine& line, KernelEventStore& events);
  Report* report_for_kill(const KernelLine& line, int pid);

  std::vector<Report> open_;  // oldest first; a few at most
  std::uint64_t last_id_ = 0;
  std::uint64_t table_report_ = 0;  // the report whose task table is printing
  std::unordered_map<int, std::size_t> kill_event_by_pid_;
};

}  // namespace ftdiag::parse::detail
