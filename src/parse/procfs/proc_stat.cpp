#include "parse/procfs/proc_stat.h"

#include <fmt/format.h>

#include "parse/procfs/procfs_text.h"

namespace ftdiag::parse {
namespace {

// Indexes into the fields after the closing ')': field N of proc(5) is N - 3.
constexpr std::size_t kState = 0, kPpid = 1, kPgrp = 2, kSession = 3;
constexpr std::size_t kStartTime = 19, kExitCode = 49;

Missing unparseable(std::string_view why) {
  return Missing{MissingReason::unparseable, fmt::format("/proc/PID/stat: {}", why)};
}

}  // namespace

Fact<ProcStat> parse_proc_stat(std::string_view text) {
  auto open = text.find('(');
  auto close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return unparseable("no '(comm)'");
  }
  ProcStat stat;
  auto pid = text::to_int(text::trim(text.substr(0, open)));
  if (!pid) return unparseable("pid is not a number");
  stat.pid = *pid;
  stat.comm = std::string(text.substr(open + 1, close - open - 1));

  auto rest = text::fields(text.substr(close + 1));
  if (rest.size() <= kStartTime) return unparseable("record is truncated");
  if (rest[kState].size() != 1) return unparseable("state is not one letter");
  stat.state = rest[kState].front();
  auto ppid = text::to_int(rest[kPpid]);
  auto pgrp = text::to_int(rest[kPgrp]);
  auto session = text::to_int(rest[kSession]);
  auto start = text::to_u64(rest[kStartTime]);
  if (!ppid || !pgrp || !session || !start) return unparseable("a required field is not a number");
  stat.ppid = *ppid;
  stat.pgrp = *pgrp;
  stat.session = *session;
  stat.start_time_ticks = *start;
  if (rest.size() > kExitCode) stat.exit_code = text::to_int(rest[kExitCode]);
  return stat;
}

}  // namespace ftdiag::parse
