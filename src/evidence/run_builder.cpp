#include "evidence/run_builder.h"

#include <algorithm>

#include <fmt/format.h>

#include "evidence/kernel_events.h"
#include "evidence/timeline.h"

namespace ftdiag::evidence {

namespace {

constexpr std::size_t kRecentlySummarised = 4096;

void raise_to(Fact<Bytes>& watermark, Bytes value) {
  if (!watermark.has_value() || value > watermark.value()) watermark = value;
}

}  // namespace

void RunBuilder::add(const JournalRecord& record) {
  std::visit([this](const auto& r) {
    on(r);
    // Records are appended in time order, but a clock stepped back must not
    // make the last sign of life an earlier one.
    if (!run_.last_record_time || r.time > *run_.last_record_time) run_.last_record_time = r.time;
  }, record);
}

void RunBuilder::add_problem(std::string problem) {
  if (run_.journal_problems.size() < kMaxJournalProblems) {
    run_.journal_problems.push_back(std::move(problem));
  } else {
    ++problems_left_out_;
  }
}

void RunBuilder::on(const RunStarted& r) {
  run_.started = r;
  has_start_ = true;
}

void RunBuilder::on(const SupervisorNote& n) {
  if (n.write_failure) {
    if (has_write_failure_) return;  // the first failure is the one that tells from when
    has_write_failure_ = true;
    run_.notes.push_back(n);
    return;
  }
  if (run_.notes.size() < kMaxNotes) {
    run_.notes.push_back(n);
  } else {
    ++notes_left_out_;
  }
}

void RunBuilder::on(const KernelLogged& k) {
  if (kernel_records_.size() < kMaxKernelRecords) {
    kernel_records_.push_back(k);
  } else {
    ++kernel_records_left_out_;
  }
}

void RunBuilder::on(const SignalSent& s) {
  if (run_.signals.size() < kMaxSignalRecords) {
    run_.signals.push_back(s);
  } else {
    ++signals_left_out_;
  }
}

void RunBuilder::on(const SignalReceived& s) {
  if (run_.received_signals.size() < kMaxSignalRecords) run_.received_signals.push_back(s);
}

void RunBuilder::on(const ProbeMarker& m) {
  if (run_.probe_markers.size() < kMaxProbeMarkers) run_.probe_markers.push_back(m);
}

void RunBuilder::on(const model::GpuMemorySample& s) {
  // Each process's GPU peak and devices, whatever is kept of the timeline.
  for (const auto& device : s.devices) {
    for (const auto& use : device.processes) {
      if (auto* p = find_process(use.pid)) {
        if (use.used && (!p->gpu_peak || *use.used > *p->gpu_peak)) p->gpu_peak = use.used;
        if (std::find(p->gpu_devices.begin(), p->gpu_devices.end(), device.index) == p->gpu_devices.end()) {
          p->gpu_devices.push_back(device.index);
        }
      }
    }
  }
  if (gpu_samples_seen_++ % gpu_sample_stride_ != 0) return;
  if (run_.gpu_samples.size() >= kMaxGpuSamples) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < run_.gpu_samples.size(); i += 2) run_.gpu_samples[kept++] = std::move(run_.gpu_samples[i]);
    run_.gpu_samples.resize(kept);
    gpu_sample_stride_ *= 2;
  }
  run_.gpu_samples.push_back(s);
}

void RunBuilder::on(const LastGasp& g) {
  if (run_.last_gasps.size() < kMaxLastGasps) run_.last_gasps.push_back(g);
}

void RunBuilder::on(const PythonStacksTaken& s) {
  if (run_.python_stacks.size() < kMaxPythonStacks) run_.python_stacks.push_back(s);
}

// The kernel log of the run: what the run's reader recorded, or why it
// could not read it (its mechanism), or that the journal predates it.
void RunBuilder::finish_kernel_log() {
  const auto& mechanisms = run_.started.mechanisms;
  auto it = mechanisms.find("kernel-log");
  if (it == mechanisms.end()) {
    run_.kernel = Missing{MissingReason::not_present,
                          fmt::format("journal format {} did not read the kernel log", run_.started.journal_format.value_or(1))};
    return;
  }
  if (!it->second) {
    run_.kernel = it->second.missing();
    return;
  }
  auto kernel = kernel_evidence_from_records(kernel_records_, run_.started.boot_time);
  if (kernel_records_left_out_) {
    kernel.records.push_back(LogEvent{.kind = "kernel-records-left-out",
                                      .time = kernel_records_.empty() ? std::nullopt : std::optional(kernel_records_.back().time),
                                      .from = kernel.from,
                                      .text = fmt::format("{} more kernel record(s) left out", kernel_records_left_out_)});
  }
  run_.kernel = std::move(kernel);
  kernel_records_.clear();
}

ProcessEvidence* RunBuilder::find_process(int pid) {
  if (auto it = live_.find(pid); it != live_.end()) return &it->second;
  if (auto it = dead_index_.find(pid); it != dead_index_.end()) return &run_.processes[it->second];
  return nullptr;
}

ProcessEvidence& RunBuilder::live_process(int pid, double time) {
  if (auto it = live_.find(pid); it != live_.end()) return it->second;
  // A record for a pid never announced (the journal was cut, or the process
  // lived and died between two scans): keep it rather than lose it.
  ProcessEvidence& p = live_[pid];
  p.pid = pid;
  p.first_seen = time;
  p.seen_by = "unannounced";
  return p;
}

void RunBuilder::on(const ProcessSeen& seen) {
  if (auto it = live_.find(seen.pid); it != live_.end()) {
    // exec: the same process with a new command line.
    auto& p = it->second;
    if (!seen.argv.empty()) p.argv = seen.argv;
    if (!seen.comm.empty()) p.comm = seen.comm;
    if (!seen.nspid.empty()) p.nspid = seen.nspid;
    if (!seen.environment.empty()) p.environment = seen.environment;  // an exec may set its own
    return;
  }
  // A new process, possibly reusing the pid of one that ended.
  dead_index_.erase(seen.pid);
  recently_summarised_.erase(seen.pid);
  ProcessEvidence& p = live_[seen.pid];
  p.pid = seen.pid;
  p.ppid = seen.ppid;
  p.nspid = seen.nspid;
  p.argv = seen.argv;
  p.comm = seen.comm;
  p.seen_by = seen.seen_by;
  p.environment = seen.environment;
  p.first_seen = seen.time;
}

void RunBuilder::forget_rss(int pid) {
  if (auto it = last_rss_.find(pid); it != last_rss_.end()) {
    job_rss_ -= it->second;
    last_rss_.erase(it);
  }
}

void RunBuilder::on(const ProcessDied& died) {
  if (auto* p = find_process(died.pid); p && p->death) {
    // A second witness of the same death (netlink, then waitpid).
    for (const auto& w : died.witnesses) {
      if (std::find(p->death->witnesses.begin(), p->death->witnesses.end(), w) == p->death->witnesses.end()) {
        p->death->witnesses.push_back(w);
      }
    }
    if (!p->death->status.has_value() && died.status.has_value()) p->death->status = died.status;
    return;
  }
  if (!live_.count(died.pid) && recently_summarised_.count(died.pid)) return;  // late witness of a summarised death
  live_process(died.pid, died.time).death = died;
  forget_rss(died.pid);
  retire(died.pid);
}

bool RunBuilder::keep_whole(const ProcessEvidence& p) const {
  const auto& status = p.death->status;
  const bool ended_badly = !status || status->signal || status->exit_code.value_or(0) != 0;
  if (p.pid == run_.started.job_pid) return true;
  // Deaths by a signal are what verdicts are made of: kept past the cap too,
  // up to twice it (a fork bomb of killed processes is summarised beyond).
  if (status && status->signal) return run_.processes.size() < 2 * kMaxKeptProcesses;
  if (run_.processes.size() >= kMaxKeptProcesses) return false;
  return ended_badly || p.death->time - p.first_seen >= kLongLivedSeconds;
}

void RunBuilder::summarise(const ProcessEvidence& p) {
  std::string command = !p.comm.empty() ? p.comm : (!p.argv.empty() ? p.argv.front() : "(unknown)");
  auto it = summary_index_.find(command);
  if (it == summary_index_.end()) {
    if (summary_index_.size() >= kMaxSummaryCommands) command = "(other commands)";
    it = summary_index_.find(command);
    if (it == summary_index_.end()) {
      it = summary_index_.emplace(command, run_.process_summary.size()).first;
      run_.process_summary.push_back(ProcessSummary{.command = command, .first_seen = p.first_seen});
    }
  }
  auto& s = run_.process_summary[it->second];
  ++s.count;
  const auto& status = p.death->status;
  if (!status || status->signal) ++s.killed_by_signal;
  else if (status->exit_code.value_or(0) != 0) ++s.exit_nonzero;
  s.first_seen = std::min(s.first_seen, p.first_seen);
  s.last_end = std::max(s.last_end, p.death->time);
  s.longest_life_s = std::max(s.longest_life_s, p.death->time - p.first_seen);
  const Bytes peak = std::max(p.peak_rss.value_or(0), p.vm_hwm.value_or(0));
  if (p.peak_rss || p.vm_hwm) raise_to(s.peak_rss, peak);
}

// Moves an ended process out of the live set: into the kept list, or into
// its command's summary.
void RunBuilder::retire(int pid) {
  auto node = live_.extract(pid);
  ProcessEvidence& p = node.mapped();
  if (keep_whole(p)) {
    dead_index_[pid] = run_.processes.size();
    run_.processes.push_back(std::move(p));
    return;
  }
  summarise(p);
  if (recently_summarised_.insert(pid).second) summarised_order_.push_back(pid);
  while (summarised_order_.size() > kRecentlySummarised) {
    recently_summarised_.erase(summarised_order_.front());
    summarised_order_.pop_front();
  }
}

void RunBuilder::add_to_node_watermarks(const MemorySample& s) {
  auto& m = run_.memory;
  if (s.node.mem_total) m.node_mem_total = s.node.mem_total;
  if (s.node.mem_available &&
      (!m.node_min_available || s.node.mem_available.value() < m.node_min_available.value())) {
    m.node_min_available = s.node.mem_available;
    m.node_min_available_time = s.time;
  }
  if (s.dev_shm) {
    raise_to(m.dev_shm_peak_used, s.dev_shm->used);
    m.dev_shm_total = s.dev_shm->total;
  } else if (!m.dev_shm_total) {
    m.dev_shm_total = s.dev_shm.missing();
    m.dev_shm_peak_used = s.dev_shm.missing();
  }
}

void RunBuilder::add_to_cgroup_watermarks(const MemorySample& s) {
  auto& m = run_.memory;
  if (!s.cgroup) {
    if (!m.cgroup_last) {
      m.cgroup_first = s.cgroup.missing();
      m.cgroup_last = s.cgroup.missing();
      m.cgroup_peak = s.cgroup.missing();
    }
    return;
  }
  if (!m.cgroup_first && s.cgroup->usage) m.cgroup_first = s.cgroup;
  // A vanished cgroup reads as all-missing; keep the last real reading.
  if (s.cgroup->usage || !m.cgroup_last) m.cgroup_last = s.cgroup;
  // The kernel's peak counts only when it was reset as the job started; else
  // it may be an earlier job's (a reused Slurm allocation or container), and
  // the highest sampled usage stands in (cgroup_last.peak_reset says why).
  if (s.cgroup->peak && s.cgroup->peak_reset.value_or(false)) raise_to(m.cgroup_peak, s.cgroup->peak.value());
  if (s.cgroup->usage) raise_to(m.cgroup_peak, s.cgroup->usage.value());
}

void RunBuilder::on(const MemorySample& s) {
  TimelinePoint point;
  point.time = s.time;
  point.node_available = s.node.mem_available;
  point.cgroup_usage = s.cgroup ? s.cgroup->usage : Fact<Bytes>(s.cgroup.missing());
  point.dev_shm_used = s.dev_shm ? Fact<Bytes>(s.dev_shm->used) : Fact<Bytes>(s.dev_shm.missing());
  for (const auto& reading : s.processes) {
    if (!live_.count(reading.pid)) {
      // A reading taken just before the death was recorded: it belongs to
      // the ended process, kept or summarised, never to a new one.
      if (recently_summarised_.count(reading.pid)) continue;
      if (auto it = dead_index_.find(reading.pid); it != dead_index_.end()) {
        auto& dead = run_.processes[it->second];
        dead.last_sample = reading;
        if (reading.vm_hwm) dead.vm_hwm = reading.vm_hwm;
        continue;
      }
    }
    auto& p = live_process(reading.pid, s.time);
    p.last_sample = reading;
    if (reading.vm_hwm) p.vm_hwm = reading.vm_hwm;
    if (reading.rss) {
      raise_to(p.peak_rss, reading.rss.value());
      Bytes& last = last_rss_[reading.pid];
      job_rss_ = job_rss_ - last + reading.rss.value();
      last = reading.rss.value();
    }
  }
  point.process_count = last_rss_.size();
  if (!last_rss_.empty()) {
    point.job_rss = job_rss_;
    if (!run_.memory.job_rss_peak || job_rss_ > run_.memory.job_rss_peak.value()) {
      run_.memory.job_rss_peak = job_rss_;
      run_.memory.job_rss_peak_time = s.time;
    }
  }
  add_to_node_watermarks(s);
  add_to_cgroup_watermarks(s);
  run_.timeline.push_back(std::move(point));
  // Keep reading a days-long journal in bounded memory: compact as we go.
  if (run_.timeline.size() > 4 * kTimelineMaxPoints) {
    run_.timeline = downsample_timeline(std::move(run_.timeline), 2 * kTimelineMaxPoints, kTimelineFullResolutionTail);
  }
}

RunEvidence RunBuilder::finish(std::string directory) && {
  run_.directory = std::move(directory);
  for (auto& [pid, p] : live_) run_.processes.push_back(std::move(p));
  live_.clear();
  std::stable_sort(run_.processes.begin(), run_.processes.end(),
                   [](const ProcessEvidence& a, const ProcessEvidence& b) { return a.first_seen < b.first_seen; });
  if (run_.ended) {
    run_.job_status = run_.ended->job_status;
  } else {
    auto job = std::find_if(run_.processes.begin(), run_.processes.end(), [&](const ProcessEvidence& p) {
      return p.pid == run_.started.job_pid && p.death;
    });
    if (job != run_.processes.end()) {
      run_.job_status = job->death->status;
    } else if (has_write_failure_) {
      run_.job_status = Missing{MissingReason::failed, "the journal ends before the job did: writing it failed"};
    } else {
      run_.job_status = Missing{MissingReason::not_present,
                                "the journal ends before the job did (ftdiag was killed, or the job still runs)"};
    }
  }
  if (notes_left_out_) run_.notes.push_back({run_.notes.back().time, fmt::format("{} more note(s) left out", notes_left_out_)});
  if (signals_left_out_) {
    run_.notes.push_back({run_.signals.back().time, fmt::format("{} more signal record(s) left out", signals_left_out_)});
  }
  finish_kernel_log();
  if (problems_left_out_) run_.journal_problems.push_back(fmt::format("{} more damaged line(s) left out", problems_left_out_));
  run_.timeline = downsample_timeline(std::move(run_.timeline), kTimelineMaxPoints, kTimelineFullResolutionTail);
  return std::move(run_);
}

}  // namespace ftdiag::evidence
