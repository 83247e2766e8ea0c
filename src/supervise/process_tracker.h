// The job's process tree as ftdiag knows it: which processes are alive, and a
// death record for each one that ended, whoever saw it end.
//
// Three witnesses feed it, best first: the netlink process connector (every
// fork, exec and exit with its wait status), waitpid on our own children and
// on orphans that come to us as child subreaper, and scans of /proc (a zombie
// still shows its wait status; a process that simply vanished is recorded
// with its status missing).
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "collect/system_roots.h"
#include "evidence/records.h"

namespace ftdiag::supervise {

class ProcessTracker {
 public:
  // `root_pid` is ftdiag itself: every descendant of it belongs to the job.
  ProcessTracker(collect::SystemRoots roots, int root_pid);

  // Starts tracking a process we know is ours (the job we spawned).
  // `known_argv` stands in when /proc has nothing left to read.
  std::optional<evidence::ProcessSeen> adopt(int pid, const char* seen_by, double now,
                                             const std::vector<std::string>& known_argv = {});
  // A fork seen by netlink; tracked when the parent is ours.
  std::optional<evidence::ProcessSeen> on_fork(int parent_tgid, int child_tgid, double now);
  // An exec seen by netlink: the command line changed.
  std::optional<evidence::ProcessSeen> on_exec(int tgid, double now);
  // A death. Returns a record when it is news: the first witness of a death,
  // or a later witness that adds one (netlink, then waitpid). Witnesses
  // "waitpid" and "subreaper" are always ours, even when never seen alive.
  std::optional<evidence::ProcessDied> on_exit(int pid, Fact<evidence::ExitStatus> status,
                                               const std::string& witness, double now);

  struct ScanResult {
    std::vector<evidence::ProcessSeen> seen;
    std::vector<evidence::ProcessDied> died;
  };
  // Walks /proc for descendants of the root: new ones are adopted; tracked
  // ones that became zombies or vanished are recorded dead.
  ScanResult scan(double now);

  // A process of ftdiag's own (an output relay, relay_process.h), never the
  // job's although it descends from ftdiag: its fork, its presence in /proc
  // and its exit are not recorded. Forgotten with forget_excluded() once reaped.
  void exclude(int pid) { excluded_.insert(pid); }
  void forget_excluded(int pid) { excluded_.erase(pid); }
  bool is_excluded(int pid) const { return excluded_.count(pid) != 0; }

  // Whether a source of process events (the process connector) keeps the
  // tree current, so that /proc is scanned only to double-check it.
  void set_kept_current_by_events(bool kept) { kept_current_by_events_ = kept; }
  bool kept_current_by_events() const { return kept_current_by_events_; }

  std::vector<int> live_pids() const;
  bool is_live(int pid) const { return live_.count(pid) != 0; }
  // Whether an event about process `tgid` can matter to the tree: the root,
  // a live process of it, or one whose death is remembered (a later witness
  // of it). At most two hash lookups and no allocation: the supervisor asks
  // this for every fork and exit on the host before anything else, and a
  // process outside the tree ends there.
  bool may_concern(int tgid) const {
    return tgid == root_pid_ || live_.count(tgid) != 0 || dead_.count(tgid) != 0;
  }

 private:
  struct Live {
    std::uint64_t start_ticks = 0;
    std::vector<std::string> argv;
    int ppid = 0;  // as first seen: an exec read after the process is gone keeps it
  };
  struct Dead {
    int pid;
    std::uint64_t start_ticks;
    Fact<evidence::ExitStatus> status;
    std::vector<std::string> witnesses;
    std::uint64_t sequence = 0;  // tells a reused pid's later death from an earlier one
  };
  std::optional<evidence::ProcessSeen> describe(int pid, int ppid_hint, const char* seen_by, double now);
  Dead* find_dead(int pid);
  void remember_dead(Dead dead);
  void bury(int pid, std::uint64_t start_ticks);
  bool buried(int pid, std::uint64_t start_ticks) const;

  collect::SystemRoots roots_;
  int root_pid_;
  std::unordered_map<int, Live> live_;
  // Recent deaths, to merge witnesses: by pid, plus their order for eviction
  // (a burst of thousands of short-lived workers must stay cheap and bounded).
  std::unordered_map<int, Dead> dead_;
  std::deque<std::pair<int, std::uint64_t>> dead_order_;
  std::uint64_t next_sequence_ = 0;
  // Older deaths, as pid -> start time only: a parent that reaps thousands of
  // children at the end leaves zombies of deaths long out of dead_.
  std::unordered_map<int, std::uint64_t> buried_;
  std::deque<std::pair<int, std::uint64_t>> buried_order_;
  std::unordered_set<int> excluded_;
  bool kept_current_by_events_ = false;
};

}  // namespace ftdiag::supervise
