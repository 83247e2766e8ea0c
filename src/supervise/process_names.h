// A live process's name and command line, read from /proc at once (the
// sender of a signal may be gone a moment later). Empty when unreadable.
#pragma once

#include <cstddef>
#include <string>

#include "collect/system_roots.h"

namespace ftdiag::supervise {

std::string process_comm(const collect::SystemRoots& roots, int pid);

// The arguments joined by spaces, cut to `max_bytes`.
std::string process_command_line(const collect::SystemRoots& roots, int pid, std::size_t max_bytes);

}  // namespace ftdiag::supervise
