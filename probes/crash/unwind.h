// The native stack of the crashing thread, as raw instruction addresses, from
// libunwind's local unwinder started at the signal frame.
//
// libunwind is loaded at start (init_unwinder) and used in the handler only
// in ways that do not allocate or lock: caching is off (UNW_CACHE_NONE: no
// global cache lock), and its one-time initialisation (a lock, a probe of
// mincore/msync) has run in a warm-up unwind at load.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ftdiag::crash {

// Loads and warms up libunwind. Not async-signal-safe; call once at load.
// False when libunwind is not available: unwind() then reports only the
// faulting instruction.
bool init_unwinder();

enum class UnwindEnd {
  complete,   // reached the outermost frame
  truncated,  // `capacity` frames and more beyond
  failed,     // the unwinder stopped before the outermost frame
};

struct Unwound {
  std::size_t count = 0;
  UnwindEnd end = UnwindEnd::failed;
};

// Fills frames[0..capacity) innermost first: frames[0] is the interrupted
// instruction of the signal frame, the rest are return addresses.
// `ucontext` is the third argument of an SA_SIGINFO handler.
// Async-signal-safe after init_unwinder().
Unwound unwind(void* ucontext, std::uintptr_t* frames, std::size_t capacity);

}  // namespace ftdiag::crash
