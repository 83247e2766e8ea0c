#include "crash/signal_chain.h"

#include <dlfcn.h>

#include <atomic>

#include "crash/export.h"

namespace ftdiag::crash {

namespace {

using SigactionFn = int (*)(int, const struct sigaction*, struct sigaction*);
using SignalFn = sighandler_t (*)(int, sighandler_t);

SigactionFn g_libc_sigaction = nullptr;
SignalFn g_libc_signal = nullptr;
std::atomic<bool> g_installed{false};

// One job view per crash signal, published without a lock (the interposed
// sigaction is called from signal handlers, e.g. by Python's faulthandler):
// a writer fills a slot no reader is told about, then publishes its index. A
// reader could only see a slot rewritten under it after kSlots more writes
// while it copies, which the jobs we serve never do.
constexpr unsigned kSlots = 8;
struct JobView {
  std::atomic<unsigned> current{0};
  std::atomic<unsigned> written{0};
  struct sigaction slots[kSlots];
};
JobView g_views[sizeof kCrashSignals / sizeof kCrashSignals[0]];

JobView& view_of(int signo) {
  unsigned i = 0;
  while (kCrashSignals[i] != signo) ++i;  // callers pass a crash signal
  return g_views[i];
}

// Before the probe's constructor ran (another preloaded library's
// constructor may call sigaction first) libc is looked up on demand.
SigactionFn libc_sigaction() {
  if (!g_libc_sigaction) resolve_libc_signal_functions();
  return g_libc_sigaction;
}

SignalFn libc_signal() {
  if (!g_libc_signal) resolve_libc_signal_functions();
  return g_libc_signal;
}

bool handles(int signo) { return g_installed.load(std::memory_order_acquire) && is_crash_signal(signo); }

}  // namespace

bool is_crash_signal(int signo) {
  for (int s : kCrashSignals) {
    if (s == signo) return true;
  }
  return false;
}

void resolve_libc_signal_functions() {
  g_libc_sigaction = reinterpret_cast<SigactionFn>(::dlsym(RTLD_NEXT, "sigaction"));
  g_libc_signal = reinterpret_cast<SignalFn>(::dlsym(RTLD_NEXT, "signal"));
}

struct sigaction next_action(int signo) {
  JobView& view = view_of(signo);
  return view.slots[view.current.load(std::memory_order_acquire)];
}

void set_next_action(int signo, const struct sigaction& action) {
  JobView& view = view_of(signo);
  unsigned slot = (view.written.fetch_add(1, std::memory_order_relaxed) + 1) % kSlots;
  view.slots[slot] = action;
  view.current.store(slot, std::memory_order_release);
}

bool install_crash_handler(CrashHandler handler) {
  if (!libc_sigaction()) return false;
  struct sigaction action {};
  action.sa_sigaction = handler;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  for (int signo : kCrashSignals) {
    struct sigaction previous {};
    if (g_libc_sigaction(signo, &action, &previous) != 0) continue;  // keeps the kernel's default then
    view_of(signo).slots[0] = previous;
  }
  g_installed.store(true, std::memory_order_release);
  return true;
}

void restore_kernel_default(int signo) {
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  g_libc_sigaction(signo, &action, nullptr);
}

// The job's sigaction for a crash signal: the job's view is read and written,
// and the kernel keeps the probe's handler, which calls the job's handler
// after recording (docs/probes.md, "Chaining").
int job_sigaction(int signo, const struct sigaction* act, struct sigaction* oldact) {
  if (!handles(signo)) {
    auto real = libc_sigaction();
    return real ? real(signo, act, oldact) : -1;
  }
  struct sigaction previous = next_action(signo);
  if (act) set_next_action(signo, *act);
  if (oldact) *oldact = previous;
  return 0;
}

// glibc's signal() calls its internal sigaction, not the exported one, so it
// is interposed too. Installs as glibc does (BSD semantics: SA_RESTART, the
// signal blocked while its handler runs).
sighandler_t job_signal(int signo, sighandler_t handler) {
  if (!handles(signo)) {
    auto real = libc_signal();
    return real ? real(signo, handler) : SIG_ERR;
  }
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, signo);
  action.sa_flags = SA_RESTART;
  struct sigaction previous {};
  job_sigaction(signo, &action, &previous);
  return previous.sa_handler;
}

}  // namespace ftdiag::crash

extern "C" FTDIAG_CRASH_EXPORT int sigaction(int signo, const struct sigaction* __restrict act,
                                             struct sigaction* __restrict oldact) noexcept {
  return ftdiag::crash::job_sigaction(signo, act, oldact);
}

extern "C" FTDIAG_CRASH_EXPORT sighandler_t signal(int signo, sighandler_t handler) noexcept {
  return ftdiag::crash::job_signal(signo, handler);
}
