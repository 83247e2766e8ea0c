#include "supervise/process_tracker.h"

#include "collect/host/proc_environ.h"

#include <algorithm>
#include <unordered_set>

#include "collect/host/proc_cmdline.h"
#include "collect/host/proc_stat.h"
#include "collect/host/proc_status.h"
#include "collect/host/process_list.h"

namespace ftdiag::supervise {

using evidence::ExitStatus;
using evidence::ProcessDied;
using evidence::ProcessSeen;

namespace {
// Enough to merge the witnesses of one death; a burst of thousands of compile
// workers must not grow our memory without bound.
constexpr std::size_t kRememberedDeaths = 4096;
// Deaths pushed out of the recent ones keep only (pid, start time), so that a
// zombie of one of them is not announced again: 24 bytes a death, ~3 MiB at most.
constexpr std::size_t kBuriedDeaths = 1 << 17;
}  // namespace

ProcessTracker::ProcessTracker(collect::SystemRoots roots, int root_pid)
    : roots_(std::move(roots)), root_pid_(root_pid) {}

std::optional<ProcessSeen> ProcessTracker::describe(int pid, int ppid_hint, const char* seen_by, double now) {
  ProcessSeen seen;
  seen.time = now;
  seen.pid = pid;
  seen.ppid = ppid_hint;
  seen.seen_by = seen_by;
  auto stat = collect::read_proc_stat(roots_, pid);
  if (stat) {
    seen.ppid = stat->ppid;
    seen.comm = stat->comm;
    seen.start_ticks = stat->start_time_ticks;
  }
  if (auto status = collect::read_proc_status(roots_, pid); status) seen.nspid = status->nspid;
  if (auto argv = collect::read_proc_cmdline(roots_, pid); argv) seen.argv = std::move(argv).value();
  if (auto environment = collect::read_role_environment(roots_, pid); environment) seen.environment = std::move(environment).value();
  live_[pid] = Live{seen.start_ticks.value_or(0), seen.argv, seen.ppid};
  return seen;
}

std::optional<ProcessSeen> ProcessTracker::adopt(int pid, const char* seen_by, double now,
                                                 const std::vector<std::string>& known_argv) {
  if (is_live(pid)) return std::nullopt;
  auto seen = describe(pid, root_pid_, seen_by, now);
  // A job that ended at once has no /proc left to read: keep what we started.
  if (seen && seen->argv.empty() && !known_argv.empty()) {
    seen->argv = known_argv;
    live_[pid].argv = known_argv;
  }
  return seen;
}

std::optional<ProcessSeen> ProcessTracker::on_fork(int parent_tgid, int child_tgid, double now) {
  if (is_live(child_tgid) || is_excluded(child_tgid)) return std::nullopt;
  // Events are read after SIGCHLD: the child may already be dead and reaped,
  // and its parent too. A parent we saw die was still ours.
  if (!may_concern(parent_tgid)) return std::nullopt;
  if (const Dead* dead = find_dead(child_tgid)) {
    auto stat = collect::read_proc_stat(roots_, child_tgid);
    // Either gone, or the very process that died: this fork is old news.
    if (!stat || stat->start_time_ticks == dead->start_ticks || dead->start_ticks == 0) return std::nullopt;
  }
  return describe(child_tgid, parent_tgid, "netlink-fork", now);
}

std::optional<ProcessSeen> ProcessTracker::on_exec(int tgid, double now) {
  auto it = live_.find(tgid);
  if (it == live_.end()) return std::nullopt;
  auto argv = collect::read_proc_cmdline(roots_, tgid);
  if (!argv || argv.value() == it->second.argv) return std::nullopt;
  // Its parent as seen at its fork: the process may be gone by the time its
  // stat is read (a short-lived worker, a loaded machine), and a parent of 0
  // would orphan it in the record.
  return describe(tgid, it->second.ppid, "netlink-exec", now);
}

bool ProcessTracker::buried(int pid, std::uint64_t start_ticks) const {
  auto it = buried_.find(pid);
  return it != buried_.end() && it->second == start_ticks;
}

ProcessTracker::Dead* ProcessTracker::find_dead(int pid) {
  auto it = dead_.find(pid);
  return it == dead_.end() ? nullptr : &it->second;
}

void ProcessTracker::bury(int pid, std::uint64_t start_ticks) {
  if (start_ticks == 0) return;  // never seen alive: nothing a scan could mistake for it
  buried_.insert_or_assign(pid, start_ticks);
  buried_order_.emplace_back(pid, start_ticks);
  if (buried_order_.size() > kBuriedDeaths) {
    const auto [oldest, ticks] = buried_order_.front();
    buried_order_.pop_front();
    if (auto it = buried_.find(oldest); it != buried_.end() && it->second == ticks) buried_.erase(it);
  }
}

void ProcessTracker::remember_dead(Dead dead) {
  dead.sequence = next_sequence_++;
  dead_order_.emplace_back(dead.pid, dead.sequence);
  const int pid = dead.pid;
  dead_.insert_or_assign(pid, std::move(dead));
  if (dead_order_.size() > kRememberedDeaths) {
    const auto [oldest, sequence] = dead_order_.front();
    dead_order_.pop_front();
    if (auto it = dead_.find(oldest); it != dead_.end() && it->second.sequence == sequence) {
      bury(it->first, it->second.start_ticks);
      dead_.erase(it);
    }
  }
}

std::optional<ProcessDied> ProcessTracker::on_exit(int pid, Fact<ExitStatus> status,
                                                   const std::string& witness, double now) {
  if (is_excluded(pid)) return std::nullopt;
  auto it = live_.find(pid);
  if (it == live_.end()) {
    if (Dead* dead = find_dead(pid)) {
      if (std::find(dead->witnesses.begin(), dead->witnesses.end(), witness) != dead->witnesses.end()) {
        return std::nullopt;
      }
      dead->witnesses.push_back(witness);
      if (!dead->status && status) dead->status = status;
      return ProcessDied{now, pid, dead->status, {witness}};
    }
    // Never seen alive: only our own children and adopted orphans are ours.
    if (witness != "waitpid" && witness != "subreaper") return std::nullopt;
    remember_dead(Dead{pid, 0, status, {witness}});
    return ProcessDied{now, pid, status, {witness}};
  }
  remember_dead(Dead{pid, it->second.start_ticks, status, {witness}});
  live_.erase(it);
  return ProcessDied{now, pid, status, {witness}};
}

ProcessTracker::ScanResult ProcessTracker::scan(double now) {
  ScanResult result;
  std::unordered_set<int> present;
  const auto descendants = collect::find_descendants(roots_, root_pid_);
  // ftdiag's own processes and whatever they start (the environment
  // snapshot's interpreter and GPU probe) are not the job's.
  std::unordered_set<int> skipped(excluded_.begin(), excluded_.end());
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& stat : descendants) {
      if (!skipped.count(stat.pid) && skipped.count(stat.ppid)) grew = skipped.insert(stat.pid).second || grew;
    }
  }
  for (const auto& stat : descendants) {
    if (skipped.count(stat.pid)) continue;
    present.insert(stat.pid);
    auto it = live_.find(stat.pid);
    if (it != live_.end() && it->second.start_ticks != stat.start_time_ticks) {
      // The pid was reused: the process we knew is gone.
      if (auto died = on_exit(stat.pid, Missing{MissingReason::not_present, "pid reused before its death was seen"},
                              "proc-scan", now)) {
        result.died.push_back(std::move(*died));
      }
      it = live_.end();
    }
    if (stat.state == 'Z' || stat.state == 'X') {
      // A zombie still carries its wait status (stat field 52) until reaped.
      // Once recorded dead it is old news for as long as it stays a zombie,
      // even after thousands of later deaths pushed it out of dead_.
      if (it == live_.end() && (find_dead(stat.pid) || buried(stat.pid, stat.start_time_ticks))) continue;
      if (it == live_.end()) {
        if (auto seen = describe(stat.pid, stat.ppid, "proc-scan", now)) result.seen.push_back(std::move(*seen));
      }
      Fact<ExitStatus> status = stat.exit_code ? Fact<ExitStatus>(ExitStatus::from_wait_status(*stat.exit_code))
                                               : Fact<ExitStatus>(Missing{MissingReason::unsupported, "kernel without stat exit_code"});
      if (auto died = on_exit(stat.pid, status, "proc-zombie", now)) result.died.push_back(std::move(*died));
      continue;
    }
    if (it == live_.end()) {
      if (Dead* dead = find_dead(stat.pid); dead && dead->start_ticks == stat.start_time_ticks) continue;
      if (auto seen = describe(stat.pid, stat.ppid, "proc-scan", now)) result.seen.push_back(std::move(*seen));
    }
  }
  std::vector<int> vanished;
  for (const auto& [pid, live] : live_) {
    if (present.count(pid)) continue;
    // Out of the tree is not dead: without a subreaper, orphans go to init.
    auto stat = collect::read_proc_stat(roots_, pid);
    if (stat && stat->start_time_ticks == live.start_ticks && stat->state != 'Z' && stat->state != 'X') continue;
    vanished.push_back(pid);
  }
  for (int pid : vanished) {
    auto died = on_exit(pid, Missing{MissingReason::not_present, "vanished between two scans; its parent reaped it"},
                        "proc-scan", now);
    if (died) result.died.push_back(std::move(*died));
  }
  return result;
}

std::vector<int> ProcessTracker::live_pids() const {
  std::vector<int> pids;
  pids.reserve(live_.size());
  for (const auto& [pid, live] : live_) pids.push_back(pid);
  std::sort(pids.begin(), pids.end());
  return pids;
}

}  // namespace ftdiag::supervise
