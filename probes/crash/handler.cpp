#include "crash/handler.h"

#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include "crash/crash_record.h"
#include "crash/record_file.h"
#include "crash/signal_chain.h"

// Signal-safety contract: everything this file calls from crash_handler is
// async-signal-safe (signal-safety(7)): open, write, read, close, nanosleep,
// sigaction and pthread_sigmask through libc, raise, and the probe's own
// functions documented as such. There is no allocation, stdio or lock.

namespace ftdiag::crash {

namespace {

enum RecordState : int { kNotRecorded, kRecording, kRecorded };
std::atomic<int> g_record_state{kNotRecorded};

// The frame of the handler running on this thread, or null: a signal that
// arrives while it runs (deeper on the same stack) is a nested entry. A
// handler the job left by longjmp leaves a stale value, which a later entry
// (not deeper) does not mistake for nesting.
[[gnu::tls_model("initial-exec")]] thread_local void* t_outer_frame = nullptr;

// A fault re-executes its instruction when the handler returns; a signal
// that was sent (si_code <= 0: kill, tgkill, abort) does not.
bool is_fault(int signo, const siginfo_t* info) {
  return info && info->si_code > 0 && signo != SIGABRT;
}

// Another thread is recording: wait for it, bounded (docs/probes.md: 5 s).
void wait_for_record() {
  const struct timespec step = {0, 10 * 1000 * 1000};
  for (int i = 0; i < 500 && g_record_state.load(std::memory_order_acquire) == kRecording; ++i) {
    ::nanosleep(&step, nullptr);
  }
}

void record_first_crash(const siginfo_t* info, void* ucontext) {
  int expected = kNotRecorded;
  if (!g_record_state.compare_exchange_strong(expected, kRecording, std::memory_order_acq_rel)) {
    if (expected == kRecording) wait_for_record();
    return;
  }
  int fd = create_record_file();
  if (fd >= 0) {
    write_crash_record(fd, info, ucontext);
    ::close(fd);
  }
  g_record_state.store(kRecorded, std::memory_order_release);
}

bool is_function(const struct sigaction& action) {
  return action.sa_handler != SIG_DFL && action.sa_handler != SIG_IGN;
}

// Runs the job's handler as the kernel would have: its mask (and the signal
// itself, unless SA_NODEFER) blocked, SA_RESETHAND honoured, with the
// signature it was registered with.
void call_job_handler(int signo, siginfo_t* info, void* ucontext, const struct sigaction& action) {
  if (action.sa_flags & SA_RESETHAND) {
    struct sigaction reset {};
    reset.sa_handler = SIG_DFL;
    set_next_action(signo, reset);
  }
  sigset_t mask = action.sa_mask;
  if (!(action.sa_flags & SA_NODEFER)) sigaddset(&mask, signo);
  sigset_t saved;
  ::pthread_sigmask(SIG_BLOCK, &mask, &saved);
  if (action.sa_flags & SA_SIGINFO) {
    action.sa_sigaction(signo, info, ucontext);
  } else {
    action.sa_handler(signo);
  }
  ::pthread_sigmask(SIG_SETMASK, &saved, nullptr);
}

// The job's action is the default (or ignore): die as without the probe.
void die_as_without_probe(int signo, const siginfo_t* info, const struct sigaction& action) {
  bool fault = is_fault(signo, info);
  if (action.sa_handler == SIG_IGN && !fault) return;  // an ignored signal that was sent
  // The kernel kills on a fault it cannot deliver, ignored or not.
  restore_kernel_default(signo);
  // Returning re-executes the faulting instruction, which now kills the
  // process by the original fault: the kernel logs it and dumps the core
  // as it would have.
  if (fault) return;
  sigset_t unblock;
  sigemptyset(&unblock);
  sigaddset(&unblock, signo);
  ::pthread_sigmask(SIG_UNBLOCK, &unblock, nullptr);
  ::raise(signo);
}

void chain(int signo, siginfo_t* info, void* ucontext) {
  struct sigaction next = next_action(signo);
  if (is_function(next)) {
    call_job_handler(signo, info, ucontext, next);
    next = next_action(signo);
    // Still installed: the job handled it, and what happens next is up to
    // the job, as without the probe (a fault re-executes into it again).
    if (is_function(next)) return;
  }
  die_as_without_probe(signo, info, next);
}

// A signal inside the handler on the same thread. A fault (in the record's
// writing or in the job's handler) must not re-execute into the handler
// forever: it kills. A raise() from the job's handler (Python's faulthandler
// restores what it saw, SIG_DFL, and raises) is left to the outer entry,
// which sees the default restored and dies by the original signal.
void handle_nested(int signo, const siginfo_t* info) {
  if (is_fault(signo, info)) restore_kernel_default(signo);
}

}  // namespace

void crash_handler(int signo, siginfo_t* info, void* ucontext) {
  const int saved_errno = errno;
  void* frame = __builtin_frame_address(0);
  if (t_outer_frame != nullptr && frame < t_outer_frame) {
    handle_nested(signo, info);
  } else {
    t_outer_frame = frame;
    record_first_crash(info, ucontext);
    chain(signo, info, ucontext);
    t_outer_frame = nullptr;
  }
  errno = saved_errno;
}

}  // namespace ftdiag::crash
