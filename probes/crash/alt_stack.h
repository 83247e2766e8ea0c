// An alternate signal stack on every thread, so that the handler still runs
// when a thread dies of a stack overflow, and the bounds of each thread's own
// stack for the record's `stack` line (pthread_getattr_np is not
// async-signal-safe, so they are noted when the thread starts).
//
// The main thread is prepared by the probe's constructor; other threads by
// the interposed pthread_create (thread_start.cpp). Threads started any other
// way (a raw clone) have neither: their handler runs on their own stack and
// the record has no `stack` line.
#pragma once

#include <cstdint>

namespace ftdiag::crash {

// Bytes of usable alternate stack per thread; one PROT_NONE guard page lies
// below it, so an overflow of the handler itself faults instead of
// corrupting memory.
inline constexpr std::size_t kAltStackSize = 64 * 1024;

// Creates the key whose destructor takes a thread's alternate stack down at
// thread exit. Not async-signal-safe; call once at load.
void init_alt_stacks();

// For the calling thread: notes its stack bounds, and gives it an
// alternate signal stack unless it already has one (the job's own is kept).
// Not async-signal-safe; call at thread start.
void prepare_thread();

struct StackBounds {
  std::uintptr_t low = 0;   // lowest address of the thread's stack
  std::uintptr_t high = 0;  // one past its highest address; 0: unknown
};

// The calling thread's stack as noted by prepare_thread. Async-signal-safe.
StackBounds thread_stack_bounds();

}  // namespace ftdiag::crash
