// The host's settings that decide how a job started from here can die, read
// for `ftdiag preflight`: RAM and swap, the memory cgroup's limit, /dev/shm,
// resource limits, whether the kernel's log is readable and where cores go,
// userspace OOM killers.
#pragma once

#include "model/environment.h"
#include "collect/system_roots.h"

namespace ftdiag::collect {

// Reads the settings as a job started by process `pid` would inherit them.
// Files come through roots: /proc/meminfo, /proc/PID/cgroup and
// /proc/self/mountinfo (the memory cgroup, as locate_memory_cgroup finds it),
// the cgroup's and its ancestors' limit files, /dev/shm (statvfs),
// /proc/sys/kernel/{dmesg_restrict,core_pattern}, /dev/kmsg (opened and
// closed at once, nothing read) and every /proc/PID/stat (OOM daemons).
// The resource limits, the CPU count and as_root are always the calling
// process's own (getrlimit, sched_getaffinity, geteuid): no root can stand
// in for them.
//
// Each item that cannot be read is a Missing with the reason and what was
// tried, never a zero. kernel_log_readable is false when opening /dev/kmsg
// was refused (EPERM/EACCES: dmesg_restrict without CAP_SYSLOG), Missing when
// there is no /dev/kmsg (a container) or the open failed otherwise. Never
// throws beyond allocation failure.
model::SystemSettings read_system_settings(const SystemRoots& roots, int pid);

// read_system_settings(roots, getpid()): ftdiag's own cgroup, the one a job
// it starts would begin in.
model::SystemSettings read_system_settings(const SystemRoots& roots);

}  // namespace ftdiag::collect
