// The five crash signals, the probe's handler for them, and the job's own
// view of them ("next"): what the job installed through sigaction/signal
// after the probe, or what was there before the probe. The interposed
// sigaction and signal (signal_chain.cpp) read and write that view and leave
// the kernel's disposition (the probe's handler) alone; other signals pass
// straight through to libc.
#pragma once

#include <signal.h>

namespace ftdiag::crash {

inline constexpr int kCrashSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

bool is_crash_signal(int signo);

// Looks up libc's sigaction and signal (dlsym RTLD_NEXT). Not async-signal-
// safe: call at load, before anything else of this file.
void resolve_libc_signal_functions();

using CrashHandler = void (*)(int, siginfo_t*, void*);

// Installs `handler` for the five signals with SA_SIGINFO|SA_ONSTACK|
// SA_NODEFER; what each had before becomes its next action. From then on the
// interposed functions serve the job's view. False when libc's sigaction
// could not be found (nothing is installed then).
bool install_crash_handler(CrashHandler handler);

// The job's current action for a crash signal. Async-signal-safe (a copy out
// of a lock-free slot).
struct sigaction next_action(int signo);
void set_next_action(int signo, const struct sigaction& action);

// Sets the kernel's disposition of signo back to SIG_DFL through libc,
// bypassing the interposition. Async-signal-safe.
void restore_kernel_default(int signo);

}  // namespace ftdiag::crash
