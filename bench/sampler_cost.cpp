// Cost of one supervisor tick's reading work, against the bare system calls it
// cannot avoid, measured in the same process and the same loop so that a noisy
// machine slows both alike.
//
// For each tree size N (default 10, 100, 500) it forks a tree of N sleeping
// processes (fan-out 8) below itself, then repeats, interleaved:
//   sample      MemorySampler::sample() over the tracker's live pids (it reads
//               every process; it records one only when its RSS moved, or
//               every 20th sample, so most samples of a sleeping tree list none)
//   fixed       MemorySampler::sample() with no pids (node, cgroup, /dev/shm),
//               by a second sampler, so that it does not reset the first's state
//   raw-status  open/read/close of /proc/PID/status for the same pids, no parsing
//   self-stat   open/read/close of /proc/self/stat, N times (the brief's baseline)
//   scan        ProcessTracker::scan() once the tree is known (steady state)
//   raw-scan    readdir /proc and open/read/close every /proc/PID/stat, no parsing
//   json        the journal line of a sample that lists no process (most ticks of
//               a tree whose memory stands still) and of one that lists them all
//               (the first sample, every 20th of an idle tree, every one of a
//               tree whose memory moves all the time)
// and prints medians and ratios. Wall time, steady clock. Last, the cost of
// ProcessTracker::on_exit for a pid that is not the job's, with and without
// a full deque of remembered deaths.
//
// usage: sampler_cost [--reps R] [N ...]
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "evidence/records_json.h"
#include "supervise/memory_sampler.h"
#include "supervise/process_tracker.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kFanOut = 8;

// Forks the children of tree node `index` (heap layout: children of i are
// kFanOut*i+1 .. kFanOut*i+kFanOut) and sleeps until killed. Runs in a child.
[[noreturn]] void grow(int index, int total) {
  for (int c = kFanOut * index + 1; c <= kFanOut * index + kFanOut && c < total; ++c) {
    pid_t pid = ::fork();
    if (pid == 0) grow(c, total);
  }
  while (true) ::pause();
}

// The tree's top process; every node is in its process group.
pid_t spawn_tree(int total) {
  pid_t top = ::fork();
  if (top < 0) {
    std::perror("fork");
    std::exit(1);
  }
  if (top == 0) {
    ::setpgid(0, 0);
    grow(0, total);
  }
  ::setpgid(top, top);
  return top;
}

void kill_tree(pid_t top) {
  ::kill(-top, SIGKILL);
  // As child subreaper we inherit the orphans, so one loop reaps the tree.
  while (::waitpid(-1, nullptr, 0) > 0 || errno == EINTR) {
  }
}

double micros_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// The bare system calls: what reading a /proc file costs without our parsing.
std::size_t read_raw(const char* path) {
  static char buffer[8192];
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  std::size_t total = 0;
  ssize_t n;
  while ((n = ::read(fd, buffer, sizeof buffer)) > 0) total += static_cast<std::size_t>(n);
  ::close(fd);
  return total;
}

std::size_t raw_status(const std::vector<int>& pids) {
  char path[64];
  std::size_t bytes = 0;
  for (int pid : pids) {
    std::snprintf(path, sizeof path, "/proc/%d/status", pid);
    bytes += read_raw(path);
  }
  return bytes;
}

std::size_t self_stat(std::size_t times) {
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < times; ++i) bytes += read_raw("/proc/self/stat");
  return bytes;
}

std::size_t raw_scan() {
  DIR* proc = ::opendir("/proc");
  if (!proc) return 0;
  char path[300];
  std::size_t bytes = 0;
  while (dirent* entry = ::readdir(proc)) {
    if (entry->d_name[0] < '1' || entry->d_name[0] > '9') continue;
    std::snprintf(path, sizeof path, "/proc/%s/stat", entry->d_name);
    bytes += read_raw(path);
  }
  ::closedir(proc);
  return bytes;
}

int count_host_processes() {
  int count = 0;
  DIR* proc = ::opendir("/proc");
  if (!proc) return 0;
  while (dirent* entry = ::readdir(proc)) {
    if (entry->d_name[0] >= '1' && entry->d_name[0] <= '9') ++count;
  }
  ::closedir(proc);
  return count;
}

volatile std::size_t sink;  // keeps the baselines' reads from being elided

struct Result {
  int processes = 0;
  int host_processes = 0;
  int reps = 0;
  double sample = 0, fixed = 0, raw_status = 0, self_stat = 0, scan = 0, raw_scan = 0;
  double json_steady = 0, json_full = 0;  // us
  std::size_t steady_bytes = 0, full_bytes = 0;
  double recorded_per_sample = 0;  // processes a sample listed, on average
};

Result measure(int total, int reps) {
  using namespace ftdiag;
  pid_t top = spawn_tree(total);
  supervise::ProcessTracker tracker(collect::SystemRoots{}, ::getpid());
  // Wait until the whole tree exists and the tracker knows it.
  auto deadline = Clock::now() + std::chrono::seconds(30);
  while (tracker.live_pids().size() < static_cast<std::size_t>(total)) {
    if (Clock::now() > deadline) {
      std::fprintf(stderr, "sampler_cost: only %zu of %d processes appeared\n", tracker.live_pids().size(), total);
      kill_tree(top);
      std::exit(1);
    }
    tracker.scan(wall_clock_now());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  supervise::MemorySampler sampler(collect::SystemRoots{});
  sampler.locate_cgroup_of(top);
  supervise::MemorySampler fixed_sampler(collect::SystemRoots{});
  fixed_sampler.locate_cgroup_of(top);
  const std::vector<int> pids = tracker.live_pids();
  const std::vector<int> none;
  // The first sample lists every process: the journal line of a full sample.
  const evidence::MemorySample full = sampler.sample(pids, wall_clock_now());
  if (full.processes.size() != pids.size()) {
    std::fprintf(stderr, "sampler_cost: the first sample listed %zu of %zu processes\n", full.processes.size(),
                 pids.size());
  }
  auto journal_line = [](const evidence::MemorySample& sample) {
    return evidence::record_to_json(evidence::JournalRecord(sample))
        .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };

  std::vector<double> sample_us, fixed_us, raw_us, self_us, scan_us, raw_scan_us, steady_us, full_us;
  std::size_t steady_bytes = 0, full_bytes = 0, recorded = 0, steady_samples = 0;
  const int warmup = std::max(3, reps / 10);
  for (int rep = -warmup; rep < reps; ++rep) {
    auto t = Clock::now();
    auto s = sampler.sample(pids, wall_clock_now());
    double sample_time = micros_since(t);

    t = Clock::now();
    auto f = fixed_sampler.sample(none, wall_clock_now());
    double fixed_time = micros_since(t);

    t = Clock::now();
    sink = raw_status(pids);
    double raw_time = micros_since(t);

    t = Clock::now();
    sink = self_stat(pids.size());
    double self_time = micros_since(t);

    t = Clock::now();
    auto scanned = tracker.scan(wall_clock_now());
    double scan_time = micros_since(t);

    t = Clock::now();
    sink = raw_scan();
    double raw_scan_time = micros_since(t);

    t = Clock::now();
    std::string line = journal_line(s);
    double json_time = micros_since(t);

    t = Clock::now();
    std::string full_line = journal_line(full);
    double full_time = micros_since(t);

    if (!scanned.died.empty() || !scanned.seen.empty()) {
      std::fprintf(stderr, "sampler_cost: the tree changed under the benchmark (%zu seen, %zu died)\n",
                   scanned.seen.size(), scanned.died.size());
    }
    sink = f.processes.size();
    if (rep < 0) continue;
    sample_us.push_back(sample_time);
    fixed_us.push_back(fixed_time);
    raw_us.push_back(raw_time);
    self_us.push_back(self_time);
    scan_us.push_back(scan_time);
    raw_scan_us.push_back(raw_scan_time);
    full_us.push_back(full_time);
    full_bytes = full_line.size() + 1;
    recorded += s.processes.size();
    if (s.processes.empty()) {
      steady_us.push_back(json_time);
      steady_bytes = line.size() + 1;
      ++steady_samples;
    }
  }
  Result r;
  r.processes = total;
  r.host_processes = count_host_processes();
  r.reps = reps;
  r.sample = median(sample_us);
  r.fixed = median(fixed_us);
  r.raw_status = median(raw_us);
  r.self_stat = median(self_us);
  r.scan = median(scan_us);
  r.raw_scan = median(raw_scan_us);
  r.json_steady = median(steady_us);
  r.json_full = median(full_us);
  r.steady_bytes = steady_bytes;
  r.full_bytes = full_bytes;
  r.recorded_per_sample = static_cast<double>(recorded) / reps;
  kill_tree(top);
  return r;
}

// ProcessTracker::on_exit for a pid that is not the job's (the process
// connector reports every exit on the host): with no remembered deaths, and
// with the deque of recent deaths full after a job that ran many short
// commands. Returns {empty us, full us} per call, medians.
std::pair<double, double> foreign_exit_cost(int reps) {
  using namespace ftdiag;
  constexpr int kCalls = 1000;
  constexpr int kFirstForeignPid = 10'000'000;  // above any pid_max, so never ours
  auto per_call = [&](supervise::ProcessTracker& tracker) {
    std::vector<double> times;
    for (int rep = 0; rep < reps; ++rep) {
      auto t = Clock::now();
      for (int i = 0; i < kCalls; ++i) {
        auto died = tracker.on_exit(kFirstForeignPid + i, evidence::ExitStatus::exited(0), "netlink", 0.0);
        sink = died.has_value();
      }
      times.push_back(micros_since(t) / kCalls);
    }
    return median(times);
  };
  supervise::ProcessTracker empty(collect::SystemRoots{}, ::getpid());
  supervise::ProcessTracker full(collect::SystemRoots{}, ::getpid());
  for (int pid = 1; pid <= 5000; ++pid) {
    // "waitpid" deaths are ours even unseen: this fills the remembered deaths.
    full.on_exit(5'000'000 + pid, evidence::ExitStatus::exited(0), "waitpid", 0.0);
  }
  double e = per_call(empty);
  double f = per_call(full);
  return {e, f};
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 0;  // 0: chosen per size
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
    } else if (int n = std::atoi(argv[i]); n > 0) {
      sizes.push_back(n);
    } else {
      std::fprintf(stderr, "usage: sampler_cost [--reps R] [N ...]\n");
      return 2;
    }
  }
  if (sizes.empty()) sizes = {10, 100, 500};
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) std::perror("prctl(PR_SET_CHILD_SUBREAPER)");

  std::printf("sampler_cost: medians of wall time per call, steady clock; baselines run in the same loop\n");
  std::printf("%6s %6s %5s | %9s %9s %9s %9s %7s | %9s %9s %7s | %8s %7s %8s %7s %6s | %8s %8s\n", "procs", "host",
              "reps", "sample", "fixed", "per-proc", "raw/proc", "ratio", "scan", "raw-scan", "ratio", "json-0",
              "bytes-0", "json-all", "bytes", "listed", "self-stat", "vs-self");
  std::printf("%6s %6s %5s | %9s %9s %9s %9s %7s | %9s %9s %7s | %8s %7s %8s %7s %6s | %8s %8s\n", "", "", "",
              "us", "us", "us", "us", "", "us", "us", "", "us", "", "us", "", "", "us/read", "");
  std::vector<Result> results;
  for (int n : sizes) {
    int r = reps > 0 ? reps : std::clamp(40000 / n, 100, 2000);
    Result x = measure(n, r);
    results.push_back(x);
    double per_proc = (x.sample - x.fixed) / n;
    double raw_per_proc = x.raw_status / n;
    double self_per_read = x.self_stat / n;
    std::printf(
        "%6d %6d %5d | %9.1f %9.1f %9.2f %9.2f %7.2f | %9.1f %9.1f %7.2f | %8.1f %7zu %8.1f %7zu %6.2f | %8.2f "
        "%8.2f\n",
        x.processes, x.host_processes, x.reps, x.sample, x.fixed, per_proc, raw_per_proc, per_proc / raw_per_proc,
        x.scan, x.raw_scan, x.scan / x.raw_scan, x.json_steady, x.steady_bytes, x.json_full, x.full_bytes,
        x.recorded_per_sample, self_per_read, x.sample / (self_per_read * (n + 4)));
    std::fflush(stdout);
  }
  std::printf(
      "\ncolumns: sample = MemorySampler::sample() over the tree; fixed = sample() with no pids (meminfo,\n"
      "cgroup files, statvfs); per-proc = (sample - fixed) / procs; raw/proc = open+read+close of\n"
      "/proc/PID/status; ratio = per-proc / raw/proc (our parsing and allocation on top of the kernel's\n"
      "work); scan = ProcessTracker::scan(); raw-scan = readdir /proc + read every /proc/PID/stat;\n"
      "json-0 = the journal line of a sample listing no process (bytes-0: its length), json-all = that of\n"
      "a sample listing them all; listed = processes a sample listed on average (the sleeping tree's RSS\n"
      "does not move, so each is listed every 20th sample); self-stat = one read of /proc/self/stat;\n"
      "vs-self = sample / ((procs + 4) x self-stat), the 4 being the tick's fixed files.\n");
  auto [empty_exit, full_exit] = foreign_exit_cost(reps > 0 ? std::min(reps, 200) : 200);
  std::printf(
      "\nProcessTracker::on_exit of a foreign pid (netlink reports every exit on the host): %.3f us with no\n"
      "remembered deaths, %.3f us with the 4096 remembered deaths full (ratio %.1f)\n",
      empty_exit, full_exit, full_exit / empty_exit);
  for (const auto& x : results) {
    // Per tick at 0.5 s: one sample and its journal line, a scan every 20th tick (with netlink). A tree
    // whose memory stands still lists each process every 20th sample; a busy one lists all every time.
    const double idle_tick_us = x.sample + (19.0 * x.json_steady + x.json_full) / 20.0 + x.scan / 20.0;
    const double busy_tick_us = x.sample + x.json_full + x.scan / 20.0;
    std::printf(
        "RESULT sampler procs=%d sample_us=%.1f per_proc_us=%.2f per_proc_vs_raw=%.2f scan_us=%.1f "
        "scan_vs_raw=%.2f json_steady_us=%.1f json_full_us=%.1f steady_bytes=%zu full_bytes=%zu "
        "idle_core_pct_at_0.5s=%.3f busy_core_pct_at_0.5s=%.3f\n",
        x.processes, x.sample, (x.sample - x.fixed) / x.processes,
        ((x.sample - x.fixed) / x.processes) / (x.raw_status / x.processes), x.scan, x.scan / x.raw_scan,
        x.json_steady, x.json_full, x.steady_bytes, x.full_bytes, idle_tick_us / 5000.0, busy_tick_us / 5000.0);
  }
  std::printf("RESULT foreign_exit empty_us=%.3f full_us=%.3f ratio=%.1f\n", empty_exit, full_exit,
              full_exit / empty_exit);
  return 0;
}
