// /proc/PID/environ: the variables that say a process's place in a
// distributed job, read through the roots and kept by
// parse/procfs/proc_environ.h (only those: an environment holds secrets).
#pragma once

#include <map>
#include <string>

#include "base/fact.h"
#include "collect/system_roots.h"
#include "parse/procfs/proc_environ.h"

namespace ftdiag::collect {

// Reads /proc/PID/environ (at most 256 KiB). Reading another user's process
// needs ptrace access: Missing then, with the reason.
Fact<std::map<std::string, std::string>> read_role_environment(const SystemRoots& roots, int pid);

}  // namespace ftdiag::collect
