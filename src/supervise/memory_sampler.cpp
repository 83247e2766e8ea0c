#include "supervise/memory_sampler.h"

#include <algorithm>

#include <unistd.h>

#include "collect/host/cgroup_locate.h"
#include "collect/host/cgroup_owner.h"
#include "collect/host/dev_shm.h"
#include "collect/host/meminfo.h"
#include "collect/host/proc_stat.h"
#include "collect/host/proc_status.h"

namespace ftdiag::supervise {

using evidence::Bytes;

namespace {

Fact<Bytes> field(const std::optional<std::uint64_t>& value, const char* what) {
  if (value) return *value;
  return Missing{MissingReason::not_present, std::string(what) + " not reported by this kernel"};
}

Fact<Bytes> field(const Fact<parse::MemInfo>& info, std::optional<std::uint64_t> parse::MemInfo::*member,
                  const char* what) {
  if (!info) return info.missing();
  return field(info.value().*member, what);
}

evidence::NodeMemory node_memory(const collect::SystemRoots& roots) {
  auto info = collect::read_meminfo(roots);
  using M = parse::MemInfo;
  return {field(info, &M::mem_total, "MemTotal"), field(info, &M::mem_available, "MemAvailable"),
          field(info, &M::swap_total, "SwapTotal"), field(info, &M::swap_free, "SwapFree"),
          field(info, &M::shmem, "Shmem")};
}

std::optional<evidence::ProcessMemory> process_memory(const collect::SystemRoots& roots, int pid) {
  auto status = collect::read_proc_status(roots, pid);
  if (!status) return std::nullopt;  // it ended since the last look; its death is recorded elsewhere
  const auto& s = status.value();
  return evidence::ProcessMemory{pid,
                                 field(s.vm_rss, "VmRSS (kernel thread or zombie)"),
                                 field(s.rss_anon, "RssAnon (kernel < 4.5)"),
                                 field(s.rss_file, "RssFile (kernel < 4.5)"),
                                 field(s.rss_shmem, "RssShmem (kernel < 4.5)"),
                                 field(s.vm_hwm, "VmHWM"),
                                 field(s.vm_swap, "VmSwap")};
}

}  // namespace

bool MemorySampler::locate_cgroup_of(int pid) {
  // On cgroup v1 a zombie reads as the root cgroup: it has left its own.
  if (auto stat = collect::read_proc_stat(roots_, pid); stat && (stat->state == 'Z' || stat->state == 'X')) {
    if (!cgroup_) cgroup_missing_ = Missing{MissingReason::not_present, "the job had already exited when its cgroup was looked up"};
    return false;
  }
  auto located = collect::locate_memory_cgroup(roots_, pid);
  if (!located) {
    // Keep watching the cgroup we had: the job may have ended, and its
    // cgroup's counters are what tells an OOM kill.
    if (!cgroup_) cgroup_missing_ = located.missing();
    return false;
  }
  auto& fresh = located.value();
  // An exiting task reads as the root cgroup before it reads as a zombie
  // (cgroup_exit comes before exit_notify): a job never moves itself to the
  // root, so a move there from a cgroup of its own is its exit, not a move.
  if (fresh->cgroup_path() == "/") {
    if (cgroup_ && cgroup_->cgroup_path() != "/") return false;
    // A job that ends at once can be read first while it exits. It was
    // forked in ftdiag's own cgroup: unless ftdiag itself is in the root,
    // the root is its exit, and ftdiag's cgroup is where it ran.
    if (!cgroup_ && pid != supervisor_pid_) {
      auto own = collect::locate_memory_cgroup(roots_, supervisor_pid_);
      if (own && own.value()->cgroup_path() != "/") return locate_from(std::move(own.value()));
    }
  }
  return locate_from(std::move(fresh));
}

bool MemorySampler::locate_from(std::unique_ptr<collect::MemoryCgroup> fresh) {
  bool changed = !cgroup_ || cgroup_->directory() != fresh->directory();
  if (changed) {
    cgroup_ = std::move(fresh);
    reset_peak();
  }
  return changed;
}

// The cgroup may be reused from an earlier job: its peak must start with
// ours. Resetting v1's shared watermark is only ours to do when nothing but
// ftdiag's own tree is in the cgroup (ftdiag runs in it too, and is the
// tree's root); v2 resets a private view and needs no such check.
// Who else is charged to the cgroup is looked up once, as it is found: a
// job without a cgroup of its own shares its parent's with everything else
// there, and then the cgroup's figures are not the job's alone.
void MemorySampler::reset_peak() {
  const auto outsider = collect::first_process_outside_tree(roots_, cgroup_->directory(), supervisor_pid_);
  if (!outsider) {
    shared_with_ = outsider.missing();
  } else {
    shared_with_ = outsider->value_or("");
  }
  Fact<bool> sole_user = true;
  if (cgroup_->version() == 1) {
    if (!outsider) sole_user = outsider.missing();
    else if (outsider->has_value()) sole_user = Missing{MissingReason::not_present, **outsider + " shares the cgroup"};
  }
  cgroup_->reset_peak(sole_user);
}

bool MemorySampler::worth_recording(const evidence::ProcessMemory& reading) {
  const std::uint64_t rss = reading.rss.value_or(0);
  auto [it, is_new] = recorded_.try_emplace(reading.pid, Recorded{rss, tick_});
  if (is_new) return true;
  Recorded& last = it->second;
  const std::uint64_t moved = rss > last.rss ? rss - last.rss : last.rss - rss;
  const bool changed = moved > kRssChangeBytes || static_cast<double>(moved) > kRssChangeRatio * static_cast<double>(last.rss);
  if (!changed && tick_ - last.tick < kRefreshTicks) return false;
  last = Recorded{rss, tick_};
  return true;
}

evidence::MemorySample MemorySampler::sample(const std::vector<int>& pids, double now) {
  ++tick_;
  evidence::MemorySample s;
  s.time = now;
  s.node = node_memory(roots_);
  if (cgroup_) {
    s.cgroup = cgroup_->read();
    if (s.cgroup) s.cgroup->shared_with = shared_with_;
  } else {
    s.cgroup = cgroup_missing_;
  }
  if (auto shm = collect::read_dev_shm_usage(roots_)) {
    s.dev_shm = evidence::FilesystemUsage{shm->total, shm->used, shm->available};
  } else {
    s.dev_shm = shm.missing();
  }
  s.processes.reserve(pids.size());
  for (int pid : pids) {
    auto m = process_memory(roots_, pid);
    // A zombie has no memory left to report; its death is recorded elsewhere.
    if (!m || !m->rss) continue;
    if (worth_recording(*m)) s.processes.push_back(std::move(*m));
  }
  // Forget processes that are gone, so the map stays as small as the tree.
  if (tick_ % kRefreshTicks == 0) {
    std::erase_if(recorded_, [&](const auto& entry) { return !std::binary_search(pids.begin(), pids.end(), entry.first); });
  }
  return s;
}

}  // namespace ftdiag::supervise
