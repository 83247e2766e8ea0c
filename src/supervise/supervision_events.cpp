// The supervision's event loop, and what its sources may ask of it: records,
// samples, scans of the tree, the job's children reaped and its signals
// passed on.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

#include <fmt/format.h>

#include "base/clock.h"
#include "supervise/signal_policy.h"
#include "supervise/supervision.h"

namespace ftdiag::supervise {

using evidence::ExitStatus;

namespace {

constexpr double kMinSecondsBetweenDeathSamples = 0.1;
// After the job's end the loop goes on while a source still passes the job's
// output on (a daemon the job left may hold it), never longer than this
// (such a daemon prints without pause, or a consumer is stuck).
constexpr double kDrainSeconds = 1.0;
// The loop's wait once the job has ended, so that the sources' settling is
// looked at again.
constexpr int kSettleWaitMs = 20;

}  // namespace

void Supervision::note(std::string text) { journal_.append(evidence::SupervisorNote{wall_clock_now(), std::move(text)}); }

void Supervision::record_seen(const std::optional<evidence::ProcessSeen>& seen) {
  if (seen) journal_.append(*seen);
}

void Supervision::record_death(const std::optional<evidence::ProcessDied>& died) {
  if (!died) return;
  console_.flush();  // the last words before a death belong on disk with it
  journal_.append(*died);
  request_sync();
  if (died->time - last_death_sample_ >= kMinSecondsBetweenDeathSamples) {
    last_death_sample_ = died->time;
    take_sample();  // catches the cgroup's oom_kill counter right after the kill
  }
}

void Supervision::take_sample() {
  const double now = wall_clock_now();
  const auto live = tracker_.live_pids();
  auto sample = sampler_.sample(live, now);
  // Before the sample is journaled: the stacks are asked for at once.
  auto gasp = options_.probes ? last_gasp_.consider(sample, live, now) : std::nullopt;
  journal_.append(sample);
  if (gasp) {
    journal_.append(std::move(*gasp));
    request_sync();  // a SIGKILL may be a moment away
  }
  for (auto& stacks : last_gasp_.collect_stacks(now)) journal_.append(std::move(stacks));
  for (auto& source : sources_) source->on_sample(sample);
}

double Supervision::wanted_sample_interval() const { return last_gasp_.interval(options_.sample_interval_s); }

void Supervision::scan_tree() {
  auto result = tracker_.scan(wall_clock_now());
  for (auto& seen : result.seen) record_seen(seen);
  for (auto& died : result.died) record_death(died);
}

void Supervision::reap_children() {
  int wait_status = 0;
  pid_t pid;
  while ((pid = ::waitpid(-1, &wait_status, WNOHANG)) > 0) {
    const double now = wall_clock_now();
    bool own_helper = false;
    for (auto& source : sources_) {
      if (source->claims_exit(pid, wait_status)) {
        own_helper = true;
        break;
      }
    }
    if (own_helper) continue;
    // Started by ftdiag before the job: ended, its owner reads what it left.
    if (std::find(options_.own_children.begin(), options_.own_children.end(), pid) != options_.own_children.end()) {
      tracker_.forget_excluded(pid);
      continue;
    }
    auto status = ExitStatus::from_wait_status(wait_status);
    if (pid == job_pid_) {
      job_status_ = status;
      job_ended_at_ = now;
    }
    record_death(tracker_.on_exit(pid, status, pid == job_pid_ ? "waitpid" : "subreaper", now));
  }
}

bool Supervision::forward_to_job(int sig, int si_code) {
  if (job_status_ || !should_forward(sig, si_code, /*job_shares_our_terminal_group=*/!started_.pseudo_terminal)) return false;
  ::kill(job_pid_, sig);
  note(fmt::format("forwarded {} to the job", evidence::signal_name(sig)));
  return true;
}

void Supervision::terminal_resized() {
  for (auto& source : sources_) source->terminal_resized();
}

void Supervision::start_syncer() {
  // The only thread ftdiag starts, after every fork (fork_safety.h).
  try {
    syncer_ = std::make_unique<journal::BackgroundSync>(std::vector{journal_.sync_target(), console_.sync_target()});
    syncer_->request();
  } catch (const std::system_error& e) {
    // The records still reach the page cache at once, so they survive
    // ftdiag's own death; only a node crash could cost the last of them.
    note(fmt::format("the journal is not synced to disk: cannot start its sync thread: {}", e.what()));
  }
}

void Supervision::request_sync() {
  if (syncer_) syncer_->request();
}

void Supervision::report_loss(const std::string& what) {
  lost_because_ = what;
  std::fprintf(stderr, "ftdiag: %s; waiting for the job without watching its tree\n", what.c_str());
  journal_.append_durable(evidence::SupervisorNote{wall_clock_now(), what + "; waiting for the job without watching its tree"});
}

void Supervision::wait_for_job_without_loop() {
  // Signals are still blocked: take them synchronously, so the job's end is
  // still mirrored and SIGTERM still reaches it.
  while (!job_status_) {
    reap_children();
    if (job_status_) return;
    siginfo_t info{};
    const int sig = ::sigwaitinfo(&supervised_signals_, &info);
    if (sig > 0) {
      if (sig != SIGCHLD && sig != SIGWINCH && sig != SIGPIPE) forward_to_job(sig, info.si_code);
      continue;
    }
    if (errno == EINTR) continue;
    lost_because_ += fmt::format("; sigwaitinfo: {}", std::strerror(errno));
    int wait_status = 0;
    pid_t got;
    do {
      got = ::waitpid(job_pid_, &wait_status, 0);
    } while (got < 0 && errno == EINTR);
    if (got != job_pid_) {
      lost_because_ += fmt::format("; waitpid: {}", std::strerror(errno));
      return;
    }
    job_status_ = ExitStatus::from_wait_status(wait_status);
    job_ended_at_ = wall_clock_now();
    record_death(tracker_.on_exit(job_pid_, *job_status_, "waitpid", job_ended_at_));
  }
}

bool Supervision::sources_settled(double now) const {
  if (now >= job_ended_at_ + kDrainSeconds) return true;
  for (const auto& source : sources_) {
    if (!source->settled(now, job_ended_at_)) return false;
  }
  return true;
}

void Supervision::event_loop() {
  while (!job_status_ || !sources_settled(wall_clock_now())) {
    if (!loop_->dispatch(job_status_ ? kSettleWaitMs : -1)) {
      report_loss(fmt::format("the event loop failed (epoll_wait: {})", std::strerror(errno)));
      return;
    }
  }
}

}  // namespace ftdiag::supervise
