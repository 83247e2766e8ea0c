#include "parse/kernel/kernel_oom_report.h"

#include <algorithm>

#include "parse/kernel/kernel_text.h"

namespace ftdiag::parse::detail {
namespace {

// Bounds that keep hostile input linear: reports open at once, how long one
// waits for its next line, rows kept per table, rows copied into the kills
// of one report (memory.oom.group kills many with one table).
constexpr std::size_t max_open_reports = 8;
constexpr std::size_t stale_after_lines = 2000;
constexpr std::size_t closed_kept_lines = 64;
constexpr std::size_t max_table_rows = 100'000;
constexpr std::size_t max_copied_rows = 1'000'000;
constexpr std::size_t max_remembered_kills = 100'000;

bool table_has(const std::vector<OomTask>& tasks, int pid) {
  return std::any_of(tasks.begin(), tasks.end(), [pid](const OomTask& task) { return task.pid == pid; });
}

// The row the kernel's oom_badness() ranks first (mm/oom_kill.c): resident
// pages + swap entries + page-table pages, plus oom_score_adj scaled by the
// pages it may use (1000 = all of them); -1000 is never killed. The scale is
// known when the report printed its memcg limit, and not needed when every
// row has the same adjustment. Nullopt when the table cannot say: a row
// without those columns, a tie, adjustments that differ with no limit.
std::optional<std::size_t> kernels_choice(const std::vector<OomTask>& tasks, std::optional<std::uint64_t> limit_kb) {
  constexpr std::int64_t page_bytes = 4096, never_killed = -1000;
  std::optional<int> common_adj;
  bool adj_differs = false;
  for (const OomTask& task : tasks) {
    if (!task.rss_pages) return std::nullopt;
    const int adj = std::clamp(task.oom_score_adj.value_or(0), -1000, 1000);
    if (adj == never_killed) continue;
    if (common_adj && *common_adj != adj) adj_differs = true;
    common_adj = adj;
  }
  const bool scale_known = limit_kb && *limit_kb > 0 && *limit_kb < (std::uint64_t{1} << 50);
  if (adj_differs && !scale_known) return std::nullopt;
  const std::int64_t total_pages = scale_known ? static_cast<std::int64_t>(*limit_kb * 1024 / page_bytes) : 0;

  std::optional<std::size_t> best;
  std::int64_t best_points = 0, second_points = 0;
  // Counts as printed may be anything in a hostile log: each is held below
  // 2^60 and the adjustment to the kernel's range, so the sum cannot overflow.
  static constexpr std::uint64_t cap = std::uint64_t{1} << 60;
  auto capped = [](std::uint64_t value) { return static_cast<std::int64_t>(std::min(value, cap)); };
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const OomTask& task = tasks[i];
    const int adj = std::clamp(task.oom_score_adj.value_or(0), -1000, 1000);
    if (adj == never_killed) continue;
    std::int64_t points = capped(*task.rss_pages) + capped(task.swap_entries.value_or(0)) +
                          capped(task.pgtables_bytes.value_or(0) / page_bytes);
    if (adj_differs) points += static_cast<std::int64_t>(adj) * total_pages / 1000;
    if (!best || points > best_points) {
      second_points = best ? best_points : second_points;
      best = i;
      best_points = points;
    } else if (points > second_points) {
      second_points = points;
    }
  }
  const bool clear = best && (tasks.size() == 1 || best_points > second_points);
  return clear ? best : std::nullopt;
}

// A kill whose report was cut before it named its victim: the victim is the
// task-table row the kernel ranks first, when one clearly is.
void name_victim_from_table(OomKill& kill) {
  kill.victim_inferred = true;
  if (auto choice = kernels_choice(kill.tasks, kill.limit_kb)) {
    kill.pid = kill.tasks[*choice].pid;
    kill.comm = kill.tasks[*choice].name;
  }
}

// A memory cgroup's kill line cut after its origin, as a paste or a quote
// keeps it: "Memory cgroup out of memory" alone, or with the start of its
// "Killed process" (or, before 4.19, "Kill process"). The node-wide origin,
// "Out of memory", is too common a phrase to be read alone.
bool is_cut_memcg_kill_line(std::string_view message) {
  static constexpr std::string_view origin = "Memory cgroup out of memory";
  message = text::trim_right(message);
  if (!message.starts_with(origin)) return false;
  std::string_view rest = message.substr(origin.size());
  if (rest.empty() || rest == ":") return true;
  // A whole line of another form is not this: the kill line parser read the
  // whole ones; the sacrifice line ("Kill process N (c) score S or sacrifice
  // child", before 5.1) comes before its kill, whole or cut after its score.
  return rest.starts_with(": Kill") && rest.find(" score ") == std::string_view::npos;
}

}  // namespace

template <typename Fits>
OomReportAssembler::Report* OomReportAssembler::route(const KernelLine& line, Fits fits) {
  const std::string& caller = line.stamp.caller;
  const bool caller_known = !caller.empty() && std::any_of(open_.begin(), open_.end(), [&](const Report& report) {
    return report.caller == caller;
  });
  // Oldest first: of two interleaved reports, the one that started first
  // is the first to reach each stage.
  for (Report& report : open_) {
    if (caller_known && report.caller != caller) continue;
    if (fits(report)) return &report;
  }
  return nullptr;
}

OomReportAssembler::Report& OomReportAssembler::open_report(const KernelLine& line, std::size_t index) {
  if (open_.size() >= max_open_reports) open_.erase(open_.begin());
  Report& report = open_.emplace_back();
  report.id = ++last_id_;
  report.caller = line.stamp.caller;
  report.last_index = index;
  return report;
}

void OomReportAssembler::forget_stale(std::size_t index, KernelEventStore& events) {
  std::erase_if(open_, [&](Report& report) {
    const std::size_t quiet = index - std::min(index, report.last_index);
    const bool stale = quiet > (report.kills > 0 ? closed_kept_lines : stale_after_lines);
    if (stale) add_kill_of_summary(report, events, false);
    return stale;
  });
}

void OomReportAssembler::finish(KernelEventStore& events) {
  for (Report& report : open_) add_kill_of_summary(report, events, true);
  open_.clear();
}

// The summary line names the victim the kernel chose; its kill line follows
// at once in a whole report. When none came, the kill is recorded from the
// summary, with what the report printed before it.
void OomReportAssembler::add_kill_of_summary(Report& report, KernelEventStore& events, bool log_ended) {
  // A log that ends inside a report after its header (a paste cut short)
  // still says the OOM killer ran, and once invoked it kills (or panics). A
  // header with no kill line for 2,000 lines is no such cut: not a kill.
  if (report.kills != 0 || !(report.summary_seen || (log_ended && report.has_header))) return;
  OomKill kill = std::move(report.context);
  kill.stamp = report.summary_seen ? report.summary_stamp : report.header_stamp;
  kill.line_number = report.summary_seen ? report.summary_line_number : report.header_line_number;
  kill.kill_line_missing = true;
  if (report.summary_pid) {
    kill.pid = *report.summary_pid;
    kill.comm = report.summary_task;
  } else {
    kill.comm = report.summary_task;  // what survived of the cut line, maybe nothing
    name_victim_from_table(kill);
  }
  if (kill.origin.empty() && !kill.constraint.empty()) {
    kill.origin = kill.constraint == "CONSTRAINT_MEMCG" ? "Memory cgroup out of memory" : "Out of memory";
  } else if (kill.origin.empty() && report.memcg_call_trace) {
    kill.origin = "Memory cgroup out of memory";
  }
  ++report.kills;
  events.add(std::move(kill), report.summary_text);
}

bool OomReportAssembler::offer(const KernelLine& line, std::size_t index, KernelEventStore& events) {
  forget_stale(index, events);
  return read_kill(line, index, events) || read_report_line(line, index) || read_oom_group(line, events) ||
         read_reaped(line, events);
}

// Everything a report prints before its kill.
bool OomReportAssembler::read_report_line(const KernelLine& line, std::size_t index) {
  const std::string_view message = line.message;
  auto before_kill = [](const Report& r) { return r.kills == 0 && !r.summary_seen; };
  Report* report = nullptr;

  if (message.starts_with('[')) {
    if (auto layout = parse_task_table_header(message)) {
      report = route(line, [&](const Report& r) { return before_kill(r) && !r.layout && !r.table_done; });
      if (report) {
        report->layout = std::move(layout);
        table_report_ = report->id;
      }
    } else if (Report* table = route(line, [&](const Report& r) {
                 // Rows follow their own header line.
                 return before_kill(r) && (r.layout.has_value() || r.headless_table) && r.id == table_report_;
               })) {
      auto task = parse_task_row(message, table->layout ? &*table->layout : nullptr);
      if (!task) return false;
      if (table->context.tasks.size() < max_table_rows) table->context.tasks.push_back(std::move(*task));
      report = table;
    } else if (auto task = parse_task_row(message, nullptr); task && task->rss_pages && task->oom_score_adj) {
      // A pasted table whose header line was left out: its rows are read by
      // the layouts of known kernels, and start (or join) a report.
      report = route(line, [&](const Report& r) { return before_kill(r) && !r.layout && !r.table_done && !r.headless_table; });
      if (!report) report = &open_report(line, index);
      report->headless_table = true;
      table_report_ = report->id;
      report->context.tasks.push_back(std::move(*task));
    }
  } else if (auto banner = parse_dump_banner(message)) {
    report = route(line, [&](const Report& r) {
      return before_kill(r) && !r.has_banner && (!r.has_header || r.context.trigger_comm == banner->comm);
    });
    if (report) {
      report->has_banner = true;
      report->context.trigger_pid = banner->pid;
      if (report->caller.empty()) report->caller = line.stamp.caller;
    }
  } else if (auto usage = parse_memcg_usage(message)) {
    report = route(line, [&](const Report& r) { return before_kill(r) && !r.has_usage && !r.layout; });
    if (!report) report = &open_report(line, index);
    report->has_usage = true;
    report->context.usage_kb = usage->usage_kb;
    report->context.limit_kb = usage->limit_kb;
    report->context.failcnt = usage->failcnt;
  } else if (auto task_in = parse_task_in_limit(message)) {
    report = route(line, [&](const Report& r) { return before_kill(r) && !r.has_task_in && !r.layout; });
    if (!report) report = &open_report(line, index);
    report->has_task_in = true;
    report->context.task_memcg = std::move(task_in->task_memcg);
    report->context.limit_of = std::move(task_in->limit_of);
  } else if (auto stats = parse_stats_memcg(message)) {
    report = route(line, [&](const Report& r) { return before_kill(r) && r.has_usage && r.stats_memcg.empty(); });
    if (report) report->stats_memcg = std::move(*stats);
    else return route(line, before_kill) != nullptr;  // a stats line of the subtree
  } else if (auto summary = parse_oom_summary(message)) {
    report = route(line, [&](const Report& r) {
      return before_kill(r) && !summary->oom_memcg.empty() &&
             (r.stats_memcg == summary->oom_memcg || r.context.limit_of == summary->oom_memcg);
    });
    if (!report && summary->global_oom) report = route(line, [&](const Report& r) { return before_kill(r) && !r.has_usage; });
    if (!report) report = route(line, before_kill);
    if (!report) report = &open_report(line, index);
    OomKill& context = report->context;
    report->summary_seen = true;
    report->summary_pid = summary->pid;
    report->summary_task = std::move(summary->task);
    report->summary_stamp = line.stamp;
    report->summary_line_number = line.line_number;
    report->summary_text = std::string(message);
    report->table_done = true;
    context.constraint = std::move(summary->constraint);
    context.global_oom = summary->global_oom;
    context.oom_memcg = std::move(summary->oom_memcg);
    context.task_memcg = std::move(summary->task_memcg);
    context.cpuset = std::move(summary->cpuset);
    context.mems_allowed = std::move(summary->mems_allowed);
  } else if (auto sacrifice = parse_sacrifice_line(message)) {
    report = route(line, [&](const Report& r) { return r.kills == 0 && !r.sacrifice && table_has(r.context.tasks, sacrifice->pid); });
    if (!report) report = route(line, [&](const Report& r) { return r.kills == 0 && !r.sacrifice && !r.summary_pid; });
    if (!report) report = &open_report(line, index);
    report->table_done = true;
    report->sacrifice = std::move(sacrifice);
  } else if (auto header = parse_oom_header(message)) {
    report = &open_report(line, index);
    report->has_header = true;
    report->header_stamp = line.stamp;
    report->header_line_number = line.line_number;
    report->context.trigger_comm = std::move(header->comm);
    report->context.gfp_mask = std::move(header->gfp_mask);
    report->context.order = header->order;
    report->context.trigger_oom_score_adj = header->oom_score_adj;
  } else if (message.find("mem_cgroup_out_of_memory+0x") != std::string_view::npos) {
    // The header's call trace: the OOM came from a memory cgroup's limit
    // (mem_cgroup_out_of_memory calls the killer with the memcg set), which
    // says the scope when the report is cut before its memcg lines.
    report = route(line, [&](const Report& r) { return before_kill(r) && r.has_header; });
    if (report) report->memcg_call_trace = true;
  } else if (auto cpuset = parse_cpuset_line(message)) {
    report = route(line, [&](const Report& r) {
      return before_kill(r) && r.has_header && !r.has_cpuset && r.context.trigger_comm == cpuset->comm;
    });
    if (report) {
      report->has_cpuset = true;
      report->context.cpuset = std::move(cpuset->cpuset);
      report->context.mems_allowed = std::move(cpuset->mems_allowed);
    }
  }
  if (!report) return false;
  report->last_index = index;
  return true;
}

OomReportAssembler::Report* OomReportAssembler::report_for_kill(const KernelLine& line, int pid) {
  if (Report* r = route(line, [&](const Report& r) { return r.kills == 0 && r.summary_pid == pid; })) return r;
  if (Report* r = route(line, [&](const Report& r) { return r.kills == 0 && r.sacrifice && r.sacrifice->pid == pid; })) return r;
  if (Report* r = route(line, [&](const Report& r) { return r.kills == 0 && r.sacrifice.has_value(); })) return r;
  if (Report* r = route(line, [&](const Report& r) {
        return r.kills > 0 && r.context.oom_group && (r.context.tasks.empty() || table_has(r.context.tasks, pid));
      })) {
    return r;
  }
  if (Report* r = route(line, [&](const Report& r) { return r.kills == 0 && !r.summary_pid && table_has(r.context.tasks, pid); })) return r;
  return route(line, [&](const Report& r) { return r.kills == 0 && !r.summary_pid; });
}

bool OomReportAssembler::read_kill(const KernelLine& line, std::size_t index, KernelEventStore& events) {
  OomKill parsed;
  bool cut = false;
  if (!parse_kill_line(line.message, parsed)) {
    if (!is_cut_memcg_kill_line(line.message)) return false;
    cut = true;
    parsed.pid = 0;
    parsed.origin = "Memory cgroup out of memory";
  }
  OomKill kill;
  if (Report* report = report_for_kill(line, parsed.pid)) {
    const bool copy_rows = report->kills == 0 || report->context.tasks.size() * (report->kills + 1) <= max_copied_rows;
    if (copy_rows) {
      kill = report->context;
    } else {
      std::vector<OomTask> rows = std::move(report->context.tasks);
      kill = report->context;
      report->context.tasks = std::move(rows);
    }
    if (report->sacrifice) {
      kill.score = report->sacrifice->score;
      if (parsed.origin.empty()) parsed.origin = report->sacrifice->origin;
    }
    if (report->kills == 0) report->first_kill_event = events.next_id();
    ++report->kills;
    report->last_index = index;
  }
  kill.stamp = line.stamp;
  kill.line_number = line.line_number;
  kill.pid = parsed.pid;
  kill.comm = std::move(parsed.comm);
  kill.origin = std::move(parsed.origin);
  kill.total_vm_kb = parsed.total_vm_kb;
  kill.anon_rss_kb = parsed.anon_rss_kb;
  kill.file_rss_kb = parsed.file_rss_kb;
  kill.shmem_rss_kb = parsed.shmem_rss_kb;
  kill.pgtables_kb = parsed.pgtables_kb;
  kill.uid = parsed.uid;
  kill.oom_score_adj = parsed.oom_score_adj;
  correct_pgtables_units(kill);
  if (cut) {
    kill.kill_line_missing = true;
    name_victim_from_table(kill);
    events.add(std::move(kill), line.message);
    return true;
  }
  // The reaper's line follows its kill closely: a flood of kills must not
  // grow the map without end.
  if (kill_event_by_pid_.size() >= max_remembered_kills) kill_event_by_pid_.clear();
  const int pid = kill.pid;
  const std::size_t id = events.add(std::move(kill), line.message);
  kill_event_by_pid_[pid] = id;
  return true;
}

// Printed after the first kill; the group's other members follow, each
// with a kill line of its own.
bool OomReportAssembler::read_oom_group(const KernelLine& line, KernelEventStore& events) {
  auto group = parse_oom_group(line.message);
  if (!group) return false;
  Report* report = route(line, [&](const Report& r) {
    return r.kills > 0 && (r.context.oom_memcg == *group || r.context.task_memcg.starts_with(*group));
  });
  if (!report) report = route(line, [](const Report& r) { return r.kills > 0; });
  if (!report) return true;
  report->context.oom_group = true;
  if (auto* first = events.find(report->first_kill_event)) {
    if (auto* kill = std::get_if<OomKill>(first)) kill->oom_group = true;
  }
  return true;
}

bool OomReportAssembler::read_reaped(const KernelLine& line, KernelEventStore& events) {
  auto pid = parse_reaped_pid(line.message);
  if (!pid) return false;
  if (auto it = kill_event_by_pid_.find(*pid); it != kill_event_by_pid_.end()) {
    if (auto* event = events.find(it->second)) {
      if (auto* kill = std::get_if<OomKill>(event)) kill->reaped = true;
    }
  }
  return true;
}

}  // namespace ftdiag::parse::detail
