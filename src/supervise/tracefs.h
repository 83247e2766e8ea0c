// Finding tracefs, mounting it when it is nowhere, writing its control
// files, and removing instances that dead ftdiag processes left behind.
//
// tracefs lives at /sys/kernel/tracing (Linux 4.1+), and also appears at
// /sys/kernel/debug/tracing while debugfs is mounted. Both need root: the
// mount point is mode 0700, and mkdir of an instance needs CAP_SYS_ADMIN.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/fact.h"

namespace ftdiag::supervise {

struct TracefsLocations {
  // Where tracefs may already be mounted, in the order tried.
  std::vector<std::string> candidates = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
  // Where to mount it when none of the candidates is tracefs.
  std::string mount_point = "/sys/kernel/tracing";
};

struct TracefsRoot {
  std::string path;
  // This process mounted it: whoever ends its use unmounts it (and only then).
  bool mounted_here = false;
};

// The first candidate that is a tracefs mount, else tracefs newly mounted at
// mount_point. Missing: permission_denied without root ("tracefs is not
// mounted and cannot be mounted: ..."), unsupported when the kernel has none.
Fact<TracefsRoot> find_or_mount_tracefs(const TracefsLocations& locations = {});

// Unmounts what find_or_mount_tracefs mounted; a tracefs still in use (EBUSY:
// another tracer's open files) stays mounted.
void unmount_tracefs(const TracefsRoot& root);

// Writes `text` to a tracefs control file in one write(2), as the kernel
// expects. Returns 0 or the errno.
int write_tracefs_file(const std::string& path, std::string_view text);

// Removes every instance named <prefix><pid> under `instances_dir` whose pid
// is not a live process here, other than this process's own. An instance
// still in use (its trace_pipe open: an owner in another pid namespace)
// refuses rmdir with EBUSY and stays. Returns how many were removed.
int remove_stale_instances(const std::string& instances_dir, std::string_view prefix);

}  // namespace ftdiag::supervise
