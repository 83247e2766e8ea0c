// /proc/PID/mountinfo: the mount table of a mount namespace (proc(5),
// fs/proc_namespace.c show_mountinfo). Used to find cgroupfs mounts.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/fact.h"

namespace ftdiag::parse {

// Text fields with the kernel's octal escapes ("\040" for a space) undone.
struct MountEntry {
  std::string mount_point;    // field 5, in the reader's mount namespace
  std::string root;           // field 4: the directory of the filesystem mounted here;
                              // for cgroupfs, relative to the reader's cgroup namespace
  std::string fs_type;        // after " - ": "cgroup", "cgroup2", "tmpfs", ...
  std::string source;         // device or "none"
  std::string mount_options;  // per-mount: "rw,nosuid,relatime"
  std::string super_options;  // per-superblock; for v1 cgroupfs lists the controllers

  bool operator==(const MountEntry&) const = default;
};

// Pure. Optional fields ("shared:1 master:2") before the " - " separator are
// skipped. Malformed lines are skipped; Missing(unparseable) when no line is
// valid.
Fact<std::vector<MountEntry>> parse_mountinfo(std::string_view text);

}  // namespace ftdiag::parse
