#include "evidence/run_builder.h"

#include <algorithm>

#include "evidence/timeline.h"

namespace ftdiag::evidence {

namespace {

void raise_to(Fact<Bytes>& watermark, Bytes value) {
  if (!watermark.has_value() || value > watermark.value()) watermark = value;
}

}  // namespace

void RunBuilder::add(const JournalRecord& record) {
  std::visit([this](const auto& r) { on(r); }, record);
}

void RunBuilder::on(const RunStarted& r) {
  run_.started = r;
  has_start_ = true;
}

ProcessEvidence& RunBuilder::process(int pid, double time) {
  auto it = live_index_.find(pid);
  if (it != live_index_.end()) return run_.processes[it->second];
  // A death or sample for a pid never announced (the journal was cut, or the
  // process lived and died between two scans): keep it rather than lose it.
  ProcessEvidence p;
  p.pid = pid;
  p.first_seen = time;
  p.seen_by = "unannounced";
  run_.processes.push_back(std::move(p));
  live_index_[pid] = run_.processes.size() - 1;
  return run_.processes.back();
}

void RunBuilder::on(const ProcessSeen& seen) {
  auto it = live_index_.find(seen.pid);
  if (it != live_index_.end() && !run_.processes[it->second].death) {
    // exec: the same process with a new command line.
    auto& p = run_.processes[it->second];
    if (!seen.argv.empty()) p.argv = seen.argv;
    if (!seen.comm.empty()) p.comm = seen.comm;
    if (!seen.nspid.empty()) p.nspid = seen.nspid;
    return;
  }
  ProcessEvidence p;
  p.pid = seen.pid;
  p.ppid = seen.ppid;
  p.nspid = seen.nspid;
  p.argv = seen.argv;
  p.comm = seen.comm;
  p.seen_by = seen.seen_by;
  p.first_seen = seen.time;
  run_.processes.push_back(std::move(p));
  live_index_[seen.pid] = run_.processes.size() - 1;
}

void RunBuilder::on(const ProcessDied& died) {
  auto& p = process(died.pid, died.time);
  if (p.death) {
    // A second witness of the same death (netlink, then waitpid).
    for (const auto& w : died.witnesses) {
      if (std::find(p.death->witnesses.begin(), p.death->witnesses.end(), w) == p.death->witnesses.end()) {
        p.death->witnesses.push_back(w);
      }
    }
    if (!p.death->status.has_value() && died.status.has_value()) p.death->status = died.status;
    return;
  }
  p.death = died;
  if (auto it = last_rss_.find(died.pid); it != last_rss_.end()) {
    job_rss_ -= it->second;
    last_rss_.erase(it);
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
  if (s.cgroup->peak) raise_to(m.cgroup_peak, s.cgroup->peak.value());
  if (s.cgroup->usage) raise_to(m.cgroup_peak, s.cgroup->usage.value());
}

void RunBuilder::on(const MemorySample& s) {
  TimelinePoint point;
  point.time = s.time;
  point.node_available = s.node.mem_available;
  point.cgroup_usage = s.cgroup ? s.cgroup->usage : Fact<Bytes>(s.cgroup.missing());
  point.dev_shm_used = s.dev_shm ? Fact<Bytes>(s.dev_shm->used) : Fact<Bytes>(s.dev_shm.missing());
  for (const auto& reading : s.processes) {
    auto& p = process(reading.pid, s.time);
    p.last_sample = reading;
    if (reading.vm_hwm) p.vm_hwm = reading.vm_hwm;
    if (reading.rss && !p.death) {
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
  if (run_.ended) {
    run_.job_status = run_.ended->job_status;
  } else if (auto it = live_index_.find(run_.started.job_pid);
             it != live_index_.end() && run_.processes[it->second].death) {
    run_.job_status = run_.processes[it->second].death->status;
  } else {
    run_.job_status = Missing{MissingReason::not_present,
                              "the journal ends before the job did (ftdiag was killed, or the job still runs)"};
  }
  run_.timeline = downsample_timeline(std::move(run_.timeline), kTimelineMaxPoints, kTimelineFullResolutionTail);
  return std::move(run_);
}

}  // namespace ftdiag::evidence
