// The crash record, docs/probes.md "The crash record": the signal, the
// thread, its registers, its stack as raw addresses and /proc/self/maps, one
// field per line, written as it is produced so that a record cut short (a
// second fault, a full disk) still reads up to where it stops.
#pragma once

#include <signal.h>

namespace ftdiag::crash {

// Writes the record of `info` (the handler's siginfo and ucontext) to fd.
// Async-signal-safe: no allocation, no locks, no stdio.
void write_crash_record(int fd, const siginfo_t* info, void* ucontext);

}  // namespace ftdiag::crash
