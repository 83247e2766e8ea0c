// /proc/PID/stat: the one-line process record (proc(5), fs/proc/array.c
// do_task_stat). Used to walk the process tree and to tell a reused pid apart
// by its start time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/fact.h"

namespace ftdiag::parse {

struct ProcStat {
  int pid = 0;
  std::string comm;  // raw comm between the parentheses; may hold spaces and ')'
  char state = '?';  // 'R', 'S', 'D', 'Z', 'T', 't', 'X', 'I', ...
  int ppid = 0;
  int pgrp = 0;
  int session = 0;
  std::uint64_t start_time_ticks = 0;  // field 22: clock ticks (sysconf(_SC_CLK_TCK)) after boot
  // Field 52 (Linux 3.5+): the wait status the kernel keeps for the task;
  // only meaningful for a zombie. Absent on older kernels.
  std::optional<int> exit_code;

  bool operator==(const ProcStat&) const = default;
};

// Pure. The comm is split off at the first '(' and the LAST ')' because a
// process may name itself "a) b (c". Fields 1-6 and 22 are required; a record
// that lacks them or holds a number that does not fit is Missing(unparseable).
Fact<ProcStat> parse_proc_stat(std::string_view text);

}  // namespace ftdiag::parse
