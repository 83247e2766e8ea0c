#include "facts/job_timeline.h"

#include <algorithm>
#include <charconv>
#include <csignal>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

namespace ftdiag::facts {

using evidence::EvidenceDocument;
using evidence::RunEvidence;
using evidence::RunRef;

std::string_view to_string(RankRole role) {
  switch (role) {
    case RankRole::first_failure: return "first failure";
    case RankRole::consequence: return "consequence";
    case RankRole::finished: return "finished";
    case RankRole::silent: return "fell silent";
    case RankRole::before: return "before";
    case RankRole::other_launch: return "other launch";
    case RankRole::unknown: return "unknown";
  }
  return "unknown";
}

namespace {

// A signal was generated this long at most before the death it caused is seen.
constexpr double kSignalBeforeDeath = 5.0;

struct RunEnd {
  std::string what;
  std::optional<double> time;  // on the run's own clock
  const evidence::ProcessEvidence* killed = nullptr;  // the process a signal killed, when one did
};

// The run's end: the first process of its tree a signal killed (a rank's
// death is the run's, whatever its launcher did next), else the job's status.
// A job that succeeded ended well, whatever died inside it (a worker its
// pool terminated), as the incident has it.
RunEnd end_of(const RunEvidence& run) {
  RunEnd end;
  const bool succeeded = run.job_status && run.job_status->launcher_code() == 0;
  for (const auto& p : run.processes) {
    if (succeeded) break;
    if (!p.death || !p.death->status || !p.death->status->signal) continue;
    if (end.time && *end.time <= p.death->time) continue;
    end.time = p.death->time;
    end.killed = &p;
  }
  if (end.killed) {
    end.what = evidence::signal_name(*end.killed->death->status->signal);
    if (end.killed->pid != run.started.job_pid) end.what += fmt::format(" (pid {})", end.killed->pid);
    return end;
  }
  if (!run.ended) {
    end.what = run.journal_problems.empty() || run.started.time > 0 ? "no end" : "unreadable";
    return end;
  }
  end.time = run.ended->time;
  for (const auto& p : run.processes) {
    if (p.pid == run.started.job_pid && p.death) end.time = p.death->time;
  }
  end.what = run.job_status ? fmt::format("exit {}", run.job_status->exit_code.value_or(0)) : "ended";
  return end;
}

std::string sender_of(const RunEvidence& run, const evidence::ProcessEvidence& p) {
  const int sig = *p.death->status->signal;
  const evidence::SignalSent* sent = nullptr;
  for (const auto& s : run.signals) {
    if (s.target_pid == p.pid && s.signal == sig && s.time <= p.death->time + 1.0 && s.time >= p.death->time - kSignalBeforeDeath) sent = &s;
  }
  if (!sent) return {};
  if (sent->code > 0) return "the kernel";
  if (sent->sender_pid == run.started.supervisor_pid) {
    for (const auto& r : run.received_signals) {
      if (r.forwarded && r.signal == sig && r.time <= sent->time + 1.0) {
        return r.sender_comm.empty() ? std::string("ftdiag") : fmt::format("{} via ftdiag", r.sender_comm);
      }
    }
    return "ftdiag";
  }
  return sent->sender_comm.empty() ? fmt::format("pid {}", sent->sender_pid) : sent->sender_comm;
}

bool is_stop_signal_name(const std::string& end) {
  return end.starts_with("SIGTERM") || end.starts_with("SIGINT") || end.starts_with("SIGHUP");
}

// The last line of a run's console that holds a failure word: what a rank
// said as it went down ("Connection closed by peer").
std::string last_failure_line(const RunEvidence& run) {
  for (auto it = run.console.tail.rbegin(); it != run.console.tail.rend(); ++it) {
    if (it->word) return it->text.substr(0, 160);
  }
  return {};
}

std::optional<std::int64_t> integer_of(const std::map<std::string, std::string>& placement, const char* name) {
  auto it = placement.find(name);
  if (it == placement.end()) return std::nullopt;
  std::int64_t value = 0;
  auto [end, error] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), value);
  if (error != std::errc() || end != it->second.data() + it->second.size() || value < 0) return std::nullopt;
  return value;
}

}  // namespace

std::vector<std::string> expand_slurm_node_list(std::string_view list, std::size_t limit) {
  std::vector<std::string> names;
  std::size_t i = 0;
  while (i < list.size() && names.size() < limit) {
    // One item: a prefix, then optionally [ranges], then a comma.
    std::size_t bracket = list.find_first_of("[,", i);
    std::string prefix(list.substr(i, bracket == std::string_view::npos ? std::string_view::npos : bracket - i));
    if (bracket == std::string_view::npos || list[bracket] == ',') {
      if (!prefix.empty()) names.push_back(prefix);
      i = bracket == std::string_view::npos ? list.size() : bracket + 1;
      continue;
    }
    const std::size_t close = list.find(']', bracket);
    if (close == std::string_view::npos) return {};
    std::string_view ranges = list.substr(bracket + 1, close - bracket - 1);
    std::string suffix;
    std::size_t next = close + 1;
    while (next < list.size() && list[next] != ',') suffix += list[next++];
    while (!ranges.empty() && names.size() < limit) {
      const auto comma = ranges.find(',');
      std::string_view range = ranges.substr(0, comma);
      ranges = comma == std::string_view::npos ? std::string_view() : ranges.substr(comma + 1);
      const auto dash = range.find('-');
      std::string_view low_text = range.substr(0, dash);
      std::string_view high_text = dash == std::string_view::npos ? low_text : range.substr(dash + 1);
      unsigned low = 0, high = 0;
      if (std::from_chars(low_text.data(), low_text.data() + low_text.size(), low).ec != std::errc() ||
          std::from_chars(high_text.data(), high_text.data() + high_text.size(), high).ec != std::errc() || high < low) {
        return {};
      }
      for (unsigned n = low; n <= high && names.size() < limit; ++n) {
        // Zero padding as written: node[01-10] names node01 ... node10.
        names.push_back(fmt::format("{}{:0{}}{}", prefix, n, low_text.size(), suffix));
      }
    }
    i = next + 1;
  }
  return names;
}

JobTimeline job_timeline(const EvidenceDocument& document, const std::optional<Incident>& incident) {
  JobTimeline timeline;
  timeline.clocks = NodeClocks::estimate(document);
  std::map<std::string, std::pair<std::size_t, std::size_t>> runs_and_silent_by_node;
  std::map<std::string, double> silent_since_by_node;
  std::optional<double> first_death;  // the earliest death by a signal or failed exit, common clock
  std::set<std::string> recorded_nodes;
  std::optional<std::int64_t> expected;
  std::vector<std::string> listed_nodes;

  evidence::for_each_run(document, [&](const RunRef& ref, const RunEvidence& run) {
    RankRow row;
    row.ref = ref;
    row.directory = run.directory;
    row.node = evidence::node_of(run.started);
    row.rank = run.started.rank;
    recorded_nodes.insert(row.node);
    const RunEnd end = end_of(run);
    // One ftdiag per node (around torchrun): the rank is the dying process's own.
    if (end.killed) {
      if (auto it = end.killed->environment.find("RANK"); it != end.killed->environment.end()) {
        int rank = 0;
        if (std::from_chars(it->second.data(), it->second.data() + it->second.size(), rank).ec == std::errc()) row.rank = rank;
      }
    }
    row.end = end.what;
    if (end.killed) row.sender = sender_of(run, *end.killed);
    if (run.memory.job_rss_peak) row.peak_rss = run.memory.job_rss_peak.value();
    auto& [runs, silent] = runs_and_silent_by_node[row.node];
    ++runs;
    if (!run.ended && !end.killed) {
      row.role = RankRole::silent;
      row.label = "fell silent";
      const auto last = run.last_heartbeat ? run.last_heartbeat : run.last_record_time;
      if (last) {
        row.at = timeline.clocks.common(document, ref, *last);
        row.because = run.last_heartbeat ? "its journal stops after its last heartbeat, with no end"
                                         : "its journal stops with no end (no heartbeat: recorded before journal format 10)";
        auto [it, fresh] = silent_since_by_node.emplace(row.node, *row.at);
        if (!fresh) it->second = std::max(it->second, *row.at);
      } else {
        row.because = "its journal holds no record";
      }
      ++silent;
    } else if (end.time) {
      row.at = timeline.clocks.common(document, ref, *end.time);
      const bool failed = end.killed || (run.job_status && run.job_status->launcher_code() != 0);
      if (failed && (!first_death || *row.at < *first_death)) first_death = row.at;
    }
    if (!expected) expected = integer_of(run.started.placement, "SLURM_NNODES");
    if (listed_nodes.empty()) {
      if (auto it = run.started.placement.find("SLURM_JOB_NODELIST"); it != run.started.placement.end()) {
        listed_nodes = expand_slurm_node_list(it->second);
      }
    }
    timeline.rows.push_back(std::move(row));
  });
  timeline.nodes = recorded_nodes.size();
  timeline.expected_nodes = expected;
  for (const auto& name : listed_nodes) {
    if (!recorded_nodes.contains(name)) timeline.unrecorded_nodes.push_back(name);
  }

  // Nodes every run of which fell silent, the first to fall silent first.
  std::vector<std::pair<double, std::string>> silent_nodes;
  for (const auto& [node, counts] : runs_and_silent_by_node) {
    if (counts.first > 0 && counts.first == counts.second) {
      auto it = silent_since_by_node.find(node);
      silent_nodes.emplace_back(it == silent_since_by_node.end() ? std::numeric_limits<double>::max() : it->second, node);
    }
  }
  std::sort(silent_nodes.begin(), silent_nodes.end());
  for (const auto& [since, node] : silent_nodes) timeline.silent_nodes.push_back(node);
  if (!silent_nodes.empty() && first_death && silent_nodes.front().first != std::numeric_limits<double>::max()) {
    timeline.silent_lead = *first_death - silent_nodes.front().first;
  }

  std::stable_sort(timeline.rows.begin(), timeline.rows.end(), [](const RankRow& a, const RankRow& b) {
    if (a.at && b.at) return *a.at < *b.at;
    return a.at.has_value() && !b.at.has_value();
  });

  // The first failure: the incident's run; a node that fell silent before it
  // (or when there is none) comes first.
  for (std::size_t i = 0; i < timeline.rows.size(); ++i) {
    const auto& row = timeline.rows[i];
    if (incident && incident->run && row.ref.host == incident->run->host && row.ref.run == incident->run->run) timeline.first = i;
  }
  const bool silence_first = timeline.silent_lead ? *timeline.silent_lead > 0 : (!timeline.silent_nodes.empty() && !first_death);
  if (silence_first) {
    for (std::size_t i = 0; i < timeline.rows.size(); ++i) {
      if (timeline.rows[i].node == timeline.silent_nodes.front() && timeline.rows[i].role == RankRole::silent) {
        timeline.first = i;
        break;
      }
    }
  }
  if (!timeline.first) return timeline;
  const auto& first_row = timeline.rows[*timeline.first];
  const std::optional<double> first_at = first_row.at;
  for (std::size_t i = 0; i < timeline.rows.size(); ++i) {
    auto& row = timeline.rows[i];
    if (row.at && first_at) row.since_first = *row.at - *first_at;
    if (i == *timeline.first) {
      row.role = RankRole::first_failure;
      row.label = "first failure";
      if (row.because.empty()) row.because = "the earliest failure of the job";
      continue;
    }
    if (row.role == RankRole::silent) continue;
    const auto& run = evidence::run_at(document, row.ref);
    // A job directory reused by a later submission holds runs of both: a run
    // of another scheduler job or step is no consequence of this failure.
    const auto& first_launch = evidence::run_at(document, first_row.ref).started.scheduler_job;
    if (!first_launch.empty() && !run.started.scheduler_job.empty() && run.started.scheduler_job != first_launch) {
      row.role = RankRole::other_launch;
      row.label = "other launch";
      row.because = fmt::format("a run of {}, not of the first failure's {}", run.started.scheduler_job, first_launch);
      continue;
    }
    const bool ok = run.job_status && run.job_status->launcher_code() == 0 && row.end.starts_with("exit");
    if (ok) {
      row.role = RankRole::finished;
      row.label = "finished";
      row.because = "its job exited 0";
      continue;
    }
    if (row.since_first && *row.since_first < -kAcrossRunsSkew) {
      row.role = RankRole::before;
      row.label = "ended before";
      row.because = fmt::format("ended {:.1f} s before the first failure", -*row.since_first);
      continue;
    }
    row.role = RankRole::consequence;
    const bool torn_down = is_stop_signal_name(row.end) || (row.end.starts_with("SIGKILL") && row.sender != "the kernel");
    row.label = torn_down ? "torn down" : "failed after";
    const std::string after = row.since_first ? fmt::format("{:.1f} s after the first failure", std::max(0.0, *row.since_first))
                                              : std::string("after the first failure");
    if (!row.sender.empty() && (is_stop_signal_name(row.end) || row.end.starts_with("SIGKILL")) && row.sender != "the kernel") {
      row.because = fmt::format("{} from {}, {}: the job torn down", row.end.substr(0, row.end.find(' ')), row.sender, after);
    } else if (is_stop_signal_name(row.end)) {
      row.because = fmt::format("{}, {}: the job torn down", row.end.substr(0, row.end.find(' ')), after);
    } else if (const auto line = last_failure_line(run); !line.empty()) {
      row.because = fmt::format("{}, {}: \"{}\"", row.end, after, line);
    } else {
      row.because = fmt::format("{}, {}", row.end, after);
    }
  }
  return timeline;
}

}  // namespace ftdiag::facts
