// /proc/PID/cgroup: which cgroup a process is in, per hierarchy
// (cgroups(7); kernel/cgroup/cgroup.c proc_cgroup_show).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/fact.h"

namespace ftdiag::parse {

// One "hierarchy-ID:controller-list:cgroup-path" line. The v2 hierarchy is
// "0::/path" with no controllers; v1 named hierarchies keep their
// "name=systemd" entry as a controller string.
struct CgroupMembership {
  int hierarchy_id = 0;
  std::vector<std::string> controllers;
  std::string path;  // relative to the reader's cgroup namespace root; may contain ':'
  // The kernel appends " (deleted)" for a v2 cgroup that was removed while the
  // process was still in it; the suffix is stripped from path and noted here.
  bool deleted = false;

  bool operator==(const CgroupMembership&) const = default;
};

// Pure. Malformed lines are skipped; Missing(unparseable) when no line is
// valid (including empty text).
Fact<std::vector<CgroupMembership>> parse_proc_cgroup(std::string_view text);

}  // namespace ftdiag::parse
