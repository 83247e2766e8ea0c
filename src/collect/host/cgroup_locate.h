// Finds the memory cgroup of a process, on v1, v2 or hybrid hosts and inside
// containers with a cgroup namespace.
#pragma once

#include <memory>

#include "base/fact.h"
#include "collect/host/memory_cgroup.h"
#include "collect/system_roots.h"

namespace ftdiag::collect {

// Reads roots' /proc/PID/cgroup and /proc/self/mountinfo. Prefers the v1
// hierarchy carrying the memory controller (a "cgroup" mount with "memory" in
// its super options); otherwise uses the "0::" line with a cgroup2 mount whose
// root cgroup.controllers lists memory. The cgroup path is made relative to the
// mount's root field (a container sees a subtree of the host's hierarchy) and
// joined under the mount point inside roots.
//
// Missing: not_present when the process is gone, no memory controller is
// mounted, or the cgroup's directory does not exist; the detail says which
// and what was seen. The result owns its backend; it reads nothing until
// read() is called. Called once per job, so it may read a few files.
Fact<std::unique_ptr<MemoryCgroup>> locate_memory_cgroup(const SystemRoots& roots, int pid);

}  // namespace ftdiag::collect
