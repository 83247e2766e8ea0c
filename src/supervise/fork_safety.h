// ftdiag forks the job and its output relays only while it is single
// threaded: a thread that holds a lock (malloc's, stdio's) at the fork leaves
// it held forever in the child. The journal's sync thread starts after the
// forks; this check makes a change of that order fail loudly instead of
// deadlocking a child once in a while.
#pragma once

#include <optional>
#include <string>

namespace ftdiag::supervise {

// How many threads this process has (/proc/PID/status "Threads:"), or -1
// when it cannot be read.
int count_own_threads();

// Why forking now would be unsafe ("3 threads exist"), or nullopt when this
// process is single-threaded (or the count cannot be read: no proof either way).
std::optional<std::string> unsafe_to_fork();

}  // namespace ftdiag::supervise
