// Reads the kernel log (/dev/kmsg) as it is now, to check ftdiag's account
// of an OOM kill against the kernel's own (docs: log-formats.md section 1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace ftdiag::itest {

struct KernelRecord {
  std::uint64_t sequence = 0;
  std::string message;  // without the "prio,seq,time,flags;" prefix
  std::string raw;      // "prio,seq,time,flags;message", as a saved /dev/kmsg holds it
};

// Every record still in the kernel's ring buffer, oldest first, read without
// blocking. The text says why the log cannot be read (no /dev/kmsg, needs
// CAP_SYSLOG with kernel.dmesg_restrict=1).
std::variant<std::vector<KernelRecord>, std::string> read_kernel_log();

// One memcg OOM kill as the kernel logged it.
struct OomKill {
  int pid = 0;            // from "oom-kill:...,pid=N,"
  std::string oom_memcg;  // the cgroup whose limit was hit
  bool killed_line = false;  // a "Memory cgroup out of memory: Killed process N" record followed
};

// The memcg OOM kills in `records` whose oom_memcg ends with "/" + cgroup_name.
std::vector<OomKill> find_oom_kills(const std::vector<KernelRecord>& records, const std::string& cgroup_name);

}  // namespace ftdiag::itest
