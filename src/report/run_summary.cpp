#include "report/run_summary.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/units.h"
#include "facts/process_roles.h"
#include "report/memory_timeline_text.h"
#include "report/report_tables.h"
#include "report/stack_summary.h"

namespace ftdiag::report {

namespace {

using evidence::RunEvidence;

// The command line in the room left: cut after a whole word, never inside
// one, with the number of characters left out.
std::string command_of(const evidence::ProcessEvidence& p, std::size_t room) {
  std::string text = p.argv.empty() ? p.comm : fmt::format("{}", fmt::join(p.argv, " "));
  for (auto& c : text) {
    if (c == '\n' || c == '\t') c = ' ';
  }
  if (text.size() <= room) return text;
  const std::size_t keep = room > 12 ? room - 12 : 0;
  std::size_t cut = text.rfind(' ', keep);
  if (cut == std::string::npos || cut == 0) cut = std::min(text.find(' '), text.size());
  return fmt::format("{} (+{} chars)", text.substr(0, cut), text.size() - cut);
}


std::string headline(const RunEvidence& run) {
  std::string duration;
  if (run.ended) duration = fmt::format(" after {}", format_duration(run.ended->time - run.started.time));
  if (!run.job_status) return fmt::format("job status unknown: {}", run.job_status.missing().detail);
  const auto& status = run.job_status.value();
  if (status.signal) return fmt::format("job {} (exit code {}){}", status.describe(), status.launcher_code(), duration);
  return fmt::format("job exited with code {}{}", status.exit_code.value_or(0), duration);
}

// Abnormal deaths one per line (they are what the user came for); normal
// exits counted.
void append_deaths(std::string& out, const RunEvidence& run, const TextStyle& style) {
  const auto roles = facts::process_roles(run);
  std::map<std::string, int> normal;
  std::vector<std::string> abnormal;
  int running = 0;
  for (std::size_t i = 0; i < run.processes.size(); ++i) {
    const auto& p = run.processes[i];
    if (!p.death) {
      ++running;
      continue;
    }
    const auto& status = p.death->status;
    if (status && !status->signal && status->exit_code == 0) {
      ++normal["exit 0"];
      continue;
    }
    std::string how = status ? status->describe() : "ended, status unknown (" + status.missing().detail + ")";
    double at = p.death->time - run.started.time;
    // The command on lines of its own, up to two of the width: at 80
    // columns a command beside the status would keep a few characters.
    std::string line = fmt::format("    pid {:<7} {:<20} {:<24} at +{}\n", p.pid, i < roles.size() ? role_label(roles[i]) : "", how, format_duration(at));
    constexpr std::string_view kCommandIndent = "      ";
    const std::size_t room = 2 * (style.width > kCommandIndent.size() + 20 ? style.width - kCommandIndent.size() : 20);
    line += wrap(command_of(p, room), style.width, kCommandIndent, kCommandIndent);
    line.pop_back();
    abnormal.push_back(line);
  }
  // The short-lived helpers counted per command, not kept one by one.
  std::uint64_t summarised = 0;
  for (const auto& s : run.process_summary) {
    summarised += s.count;
    normal["exit 0"] += static_cast<int>(s.count - s.exit_nonzero - s.killed_by_signal);
    if (s.exit_nonzero) normal["exit non-zero"] += static_cast<int>(s.exit_nonzero);
    if (s.killed_by_signal) normal["killed or ended unseen"] += static_cast<int>(s.killed_by_signal);
  }
  out += fmt::format("  processes: {} seen", run.processes.size() + summarised);
  for (const auto& [how, count] : normal) out += fmt::format(", {} {}", count, how);
  if (running) out += fmt::format(", {} still running at the end", running);
  out += '\n';
  if (!run.process_summary.empty()) {
    std::vector<const evidence::ProcessSummary*> by_count;
    for (const auto& s : run.process_summary) by_count.push_back(&s);
    std::sort(by_count.begin(), by_count.end(), [](auto* a, auto* b) { return a->count > b->count; });
    constexpr std::size_t kCommands = 5;
    std::string commands;
    for (std::size_t i = 0; i < std::min(by_count.size(), kCommands); ++i) {
      commands += fmt::format("{}{} x{}", i ? ", " : "", by_count[i]->command, by_count[i]->count);
    }
    if (by_count.size() > kCommands) commands += fmt::format(", and {} more commands", by_count.size() - kCommands);
    out += fmt::format("    short-lived: {}\n", commands);
  }
  constexpr std::size_t kShown = 12;
  for (std::size_t i = 0; i < std::min(abnormal.size(), kShown); ++i) out += abnormal[i] + '\n';
  if (abnormal.size() > kShown) out += fmt::format("    ... and {} more\n", abnormal.size() - kShown);
}

// Which peak the figure is: the kernel's, reset as the job started, or the
// highest sampled usage when the kernel's could not be the job's own.
std::string peak_basis(const model::CgroupMemory& c) {
  if (c.peak_reset.value_or(false)) return "";
  if (!c.shared_with.value_or("").empty()) return " (sampled: the cgroup's, not the job's alone)";
  return " (sampled)";
}

// A cgroup the job shares with processes outside its tree is named as such:
// its figures are not the job's.
std::string sharing(const model::CgroupMemory& c) {
  const auto with = c.shared_with.value_or("");
  return with.empty() ? "" : fmt::format(", shared with {} and others outside the job", with);
}

// The cgroup's counters count from its creation, earlier jobs included: the
// run's own is the difference with the first reading.
std::string oom_kills_during_run(const evidence::MemoryWatermarks& m) {
  const auto& last = m.cgroup_last->oom_kill;
  if (!last) return "";
  std::uint64_t before = 0;
  if (m.cgroup_first && m.cgroup_first->oom_kill) before = std::min(m.cgroup_first->oom_kill.value(), last.value());
  return fmt::format(", oom_kill {}", last.value() - before);
}

void append_gpu_memory(std::string& out, const evidence::RunEvidence& run);

void append_memory(std::string& out, const RunEvidence& run) {
  const auto& m = run.memory;
  if (m.cgroup_last) {
    const auto& c = m.cgroup_last.value();
    std::string line = fmt::format("  cgroup v{} {}{}: peak {}{}", c.version, c.path, sharing(c),
                                   m.cgroup_peak ? format_bytes(m.cgroup_peak.value()) : "unknown",
                                   m.cgroup_peak ? peak_basis(c) : "");
    if (c.limit && c.limit.value()) {
      line += fmt::format(" of limit {}", format_bytes(*c.limit.value()));
      if (m.cgroup_peak && *c.limit.value() > 0) {
        line += fmt::format(" ({:.0f}%)", 100.0 * static_cast<double>(m.cgroup_peak.value()) / static_cast<double>(*c.limit.value()));
      }
    } else if (c.limit) {
      line += ", no limit";
    }
    line += oom_kills_during_run(m);
    out += line + '\n';
  } else {
    out += fmt::format("  cgroup: {}\n", m.cgroup_last.missing().detail);
  }
  if (m.node_min_available && m.node_mem_total) {
    out += fmt::format("  node: {} RAM, lowest available {}\n", format_bytes(m.node_mem_total.value()),
                       format_bytes(m.node_min_available.value()));
  }
  if (m.job_rss_peak) {
    out += fmt::format("  job RSS peak {} (all processes)", format_bytes(m.job_rss_peak.value()));
    if (m.job_rss_peak_time) out += fmt::format(" at +{}", format_duration(*m.job_rss_peak_time - run.started.time));
    out += '\n';
  }
  if (m.dev_shm_peak_used && m.dev_shm_total) {
    out += fmt::format("  /dev/shm peak {} of {}\n", format_bytes(m.dev_shm_peak_used.value()),
                       format_bytes(m.dev_shm_total.value()));
  }
  append_gpu_memory(out, run);
}

// Per GPU, the highest use sampled, and the job's processes on it with their
// own peaks ("GPU 0 peak 71.2 GiB at +5 m 3 s; pid 812 (rank 0) 70.9 GiB").
void append_gpu_memory(std::string& out, const evidence::RunEvidence& run) {
  std::map<int, std::pair<model::Bytes, double>> peaks;  // device -> (peak, time)
  for (const auto& sample : run.gpu_samples) {
    for (const auto& device : sample.devices) {
      if (!device.used) continue;
      auto& peak = peaks[device.index];
      if (*device.used >= peak.first) peak = {*device.used, sample.time};
    }
  }
  for (const auto& [index, peak] : peaks) {
    out += fmt::format("  GPU {} peak {} at +{}", index, format_bytes(peak.first), format_duration(peak.second - run.started.time));
    std::vector<std::string> users;
    for (const auto& p : run.processes) {
      if (!p.gpu_peak || std::find(p.gpu_devices.begin(), p.gpu_devices.end(), index) == p.gpu_devices.end()) continue;
      const auto rank = p.environment.find("RANK");
      users.push_back(fmt::format("pid {}{} {}", p.pid, rank == p.environment.end() ? "" : fmt::format(" (rank {})", rank->second),
                                  format_bytes(*p.gpu_peak)));
      if (users.size() == 8) break;
    }
    if (!users.empty()) out += fmt::format("; {}", fmt::join(users, ", "));
    out += '\n';
  }
}

// "14:03:07", the local time of a journal time.
std::string clock_time(double time) {
  const auto seconds = static_cast<std::time_t>(time);
  std::tm local{};
  localtime_r(&seconds, &local);
  char text[16];
  std::strftime(text, sizeof text, "%H:%M:%S", &local);
  return text;
}

// "the record is incomplete from 14:03:07: no space left on device (write to
// console.log failed)" when writing the record failed; empty otherwise.
std::string write_failure_line(const RunEvidence& run) {
  for (const auto& note : run.notes) {
    if (!note.write_failure) continue;
    const auto& f = *note.write_failure;
    std::string why = f.error;
    if (!why.empty()) why[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(why[0])));
    return fmt::format("  the record is incomplete from {}: {} ({} to {} failed; the job was not disturbed)\n",
                       clock_time(f.since), why, f.operation, f.file);
  }
  return "";
}

// "exited with code 1 after 6.5 s; first to die: pid 9758 (rank 0), killed
// by SIGKILL at +6.2 s": the job's end and the death that matters.
std::string compact_headline(const RunEvidence& run, std::optional<std::size_t> incident) {
  std::string out = headline(run);
  const auto roles = facts::process_roles(run);
  std::optional<std::size_t> first;
  if (incident && *incident < run.processes.size() && abnormal_death(run.processes[*incident])) first = incident;
  for (std::size_t i = 0; i < run.processes.size() && !incident; ++i) {
    if (!abnormal_death(run.processes[i])) continue;
    if (!first || run.processes[i].death->time < run.processes[*first].death->time) first = i;
  }
  if (!first) return out;
  const auto& p = run.processes[*first];
  if (p.pid == run.started.job_pid) return out;  // the job's own process: the headline said it
  const auto& status = p.death->status;
  out += fmt::format("; first to die: pid {}{}, {} at +{}", p.pid, *first < roles.size() ? " (" + role_label(roles[*first]) + ")" : "",
                     status ? status->describe() : "status unknown", format_duration(p.death->time - run.started.time));
  return out;
}

}  // namespace

std::string render_run_summary(const RunEvidence& run, const std::string& run_path, const TextStyle& style,
                               std::optional<std::size_t> incident) {
  std::string out = wrap(fmt::format("ftdiag: {}", style.verbose ? headline(run) : compact_headline(run, incident)), style.width, "", "  ");
  if (style.verbose) {
    append_deaths(out, run, style);
    append_memory(out, run);
  }
  out += render_memory_timeline(run, style, "  ", incident);
  append_stacks(out, run, style);
  if (auto incomplete = write_failure_line(run); !incomplete.empty()) {
    out += incomplete;
  } else if (!run.ended) {
    out += "  the record ends early: ftdiag itself was killed, or the job still runs\n";
  }
  for (const auto& problem : run.journal_problems) out += wrap("note: " + problem, style.width, "  ", "    ");
  out += wrap(fmt::format("record: {}", run_path), style.width, "  ", "    ");
  return out;
}

}  // namespace ftdiag::report
