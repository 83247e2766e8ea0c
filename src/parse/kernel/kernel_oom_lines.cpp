// The OOM report's lines other than the task table (log-formats.md §1.2).
// Names (comm: 15 bytes, any byte but NUL) may hold spaces, parentheses and
// commas, so each parser anchors on the fixed text around them, reading from
// the right where the name comes last.
#include "parse/kernel/kernel_oom.h"
#include "parse/kernel/kernel_text.h"

#include <algorithm>

namespace ftdiag::parse::detail {
namespace {

using namespace text;

constexpr auto npos = std::string_view::npos;

// The number right after the first `key`, e.g. "order=" -> 0.
std::optional<int> int_after(std::string_view s, std::string_view key) {
  const auto at = s.find(key);
  if (at == npos) return std::nullopt;
  std::string_view rest = s.substr(at + key.size());
  return take_int(rest);
}

std::optional<std::uint64_t> u64_after(std::string_view s, std::string_view key) {
  const auto at = s.find(key);
  if (at == npos) return std::nullopt;
  std::string_view rest = s.substr(at + key.size());
  return take_u64(rest);
}

// "Memory cgroup out of memory: " before an anchor; empty when the anchor
// starts the line.
std::optional<std::string> origin_before(std::string_view message, std::size_t anchor) {
  if (anchor == 0) return std::string();
  std::string_view origin = message.substr(0, anchor);
  if (!origin.ends_with(": ")) return std::nullopt;
  origin.remove_suffix(2);
  return std::string(trim(origin));
}

void read_kill_sizes(std::string_view tail, OomKill& kill) {
  kill.total_vm_kb = u64_after(tail, "total-vm:");
  kill.anon_rss_kb = u64_after(tail, "anon-rss:");
  kill.file_rss_kb = u64_after(tail, "file-rss:");
  kill.shmem_rss_kb = u64_after(tail, "shmem-rss:");
  kill.pgtables_kb = u64_after(tail, "pgtables:");
  if (auto uid = int_after(tail, "UID:")) kill.uid = uid;
  kill.oom_score_adj = int_after(tail, "oom_score_adj:");
}

// "N (comm) <anchor>" with comm greedy up to the last anchor.
bool read_pid_and_comm(std::string_view rest, std::string_view anchor, int& pid, std::string& comm,
                       std::string_view& tail) {
  auto number = take_int(rest);
  if (!number || !consume(rest, " (")) return false;
  auto close = rest.rfind(anchor);
  if (close == npos) {
    close = rest.rfind(')');
    if (close == npos) return false;
  }
  pid = *number;
  comm = std::string(rest.substr(0, close));
  tail = rest.substr(close);
  return true;
}

}  // namespace

std::optional<OomHeader> parse_oom_header(std::string_view message) {
  static constexpr std::string_view anchor = " invoked oom-killer: ";
  const auto at = message.find(anchor);
  if (at == npos) return std::nullopt;
  OomHeader header;
  header.comm = std::string(message.substr(0, at));
  std::string_view rest = message.substr(at + anchor.size());
  if (consume(rest, "gfp_mask=")) header.gfp_mask = std::string(rest.substr(0, rest.find(", ")));
  header.order = int_after(rest, "order=");
  header.oom_score_adj = int_after(rest, "oom_score_adj=");
  return header;
}

std::optional<DumpBanner> parse_dump_banner(std::string_view message) {
  DumpBanner banner;
  std::string_view rest = message;
  std::string_view comm_key;
  if (consume(rest, "CPU: ")) {
    banner.cpu = take_int(rest);
    const auto pid_at = rest.find(" PID: ");
    if (!banner.cpu || pid_at == npos) return std::nullopt;
    rest.remove_prefix(pid_at + 6);
    comm_key = " Comm: ";
  } else if (consume(rest, "Pid: ")) {
    comm_key = ", comm: ";
  } else {
    return std::nullopt;
  }
  auto pid = take_int(rest);
  if (!pid || !consume(rest, comm_key)) return std::nullopt;
  banner.pid = *pid;
  // The comm ends where the kernel's state begins (RHEL 7 puts "Kdump: loaded" first).
  std::size_t end = npos;
  for (std::string_view marker : {" Not tainted", " Tainted: ", " Kdump: "}) end = std::min(end, rest.find(marker));
  banner.comm = std::string(rest.substr(0, end));
  return banner;
}

std::optional<MemcgUsage> parse_memcg_usage(std::string_view message) {
  if (!consume(message, "memory: usage ")) return std::nullopt;
  MemcgUsage usage;
  auto used = take_u64(message);
  if (!used || !consume(message, "kB, limit ")) return std::nullopt;
  auto limit = take_u64(message);
  if (!limit || !consume(message, "kB, failcnt ")) return std::nullopt;
  auto failcnt = take_u64(message);
  if (!failcnt) return std::nullopt;
  return MemcgUsage{*used, *limit, *failcnt};
}

std::optional<TaskInLimit> parse_task_in_limit(std::string_view message) {
  static constexpr std::string_view middle = " killed as a result of limit of ";
  if (!consume(message, "Task in ")) return std::nullopt;
  const auto at = message.rfind(middle);
  if (at == npos) return std::nullopt;
  return TaskInLimit{std::string(message.substr(0, at)), std::string(trim_right(message.substr(at + middle.size())))};
}

std::optional<std::string> parse_stats_memcg(std::string_view message) {
  if (!consume(message, "Memory cgroup stats for ")) return std::nullopt;
  message = trim_right(message);
  // v1 up to 6.4 puts the counters on the same line: "/docker/555f...: cache:188KB ..."
  const auto inline_stats = message.find(": ");
  if (inline_stats != npos) return std::string(message.substr(0, inline_stats));
  if (!message.ends_with(':')) return std::nullopt;
  message.remove_suffix(1);
  return std::string(message);
}

std::optional<CpusetLine> parse_cpuset_line(std::string_view message) {
  const auto mems = message.rfind(" mems_allowed=");
  if (mems == npos) return std::nullopt;
  const auto cpuset = message.substr(0, mems).rfind(" cpuset=");
  if (cpuset == npos || message.starts_with("oom-kill:")) return std::nullopt;
  return CpusetLine{std::string(message.substr(0, cpuset)), std::string(message.substr(cpuset + 8, mems - cpuset - 8)),
                    std::string(trim_right(message.substr(mems + 14)))};
}

std::optional<OomSummary> parse_oom_summary(std::string_view message) {
  if (!consume(message, "oom-kill:constraint=")) return std::nullopt;
  message = trim_right(message);
  // ",pid=N,uid=N" ends the line; everything between ",task=" and it is the comm.
  OomSummary summary;
  std::string_view fields = message;
  if (const auto uid_at = message.rfind(",uid="); uid_at != npos) {
    summary.uid = to_int(message.substr(uid_at + 5));
    const auto pid_at = message.substr(0, uid_at).rfind(",pid=");
    if (pid_at == npos) return std::nullopt;
    summary.pid = to_int(message.substr(pid_at + 5, uid_at - pid_at - 5));
    if (!summary.pid) return std::nullopt;
    fields = message.substr(0, pid_at);
  } else if (const auto pid_at = message.rfind(",pid="); pid_at != npos) {
    fields = message.substr(0, pid_at);  // cut inside ",pid=N": the number may be cut too
  }

  // Each key in its fixed order, when printed; a value runs to the next key
  // found (nodemask and mems_allowed are lists that may hold commas).
  struct Key {
    std::string_view text;
    std::string* value;
  };
  bool global = false;
  std::string global_marker;
  const Key keys[] = {{",nodemask=", &summary.nodemask},   {",cpuset=", &summary.cpuset},
                      {",mems_allowed=", &summary.mems_allowed}, {",oom_memcg=", &summary.oom_memcg},
                      {",global_oom", &global_marker},     {",task_memcg=", &summary.task_memcg},
                      {",task=", &summary.task}};
  std::size_t found_at[std::size(keys)];
  std::size_t cursor = 0;
  for (std::size_t i = 0; i < std::size(keys); ++i) {
    found_at[i] = fields.find(keys[i].text, cursor);
    if (found_at[i] != npos) {
      cursor = found_at[i] + keys[i].text.size();
      if (keys[i].value == &global_marker) global = true;
    }
  }
  std::size_t end = fields.size();
  for (std::size_t i = std::size(keys); i-- > 0;) {
    if (found_at[i] == npos) continue;
    const std::size_t start = found_at[i] + keys[i].text.size();
    *keys[i].value = std::string(fields.substr(start, end - start));
    end = found_at[i];
  }
  summary.constraint = std::string(fields.substr(0, end));
  summary.global_oom = global;
  return summary;
}

bool parse_kill_line(std::string_view message, OomKill& kill) {
  static constexpr std::string_view anchor = "Killed process ";
  const auto at = message.find(anchor);
  if (at == npos) return false;
  auto origin = origin_before(message, at);
  if (!origin) return false;
  std::string_view rest = message.substr(at + anchor.size());
  std::string_view tail;
  if (std::string_view old = rest; take_int(old) && old.starts_with(", UID ")) {
    // 2.6.32: "Killed process 215701, UID 679, (java) total-vm:..."
    auto pid = take_int(rest);
    consume(rest, ", UID ");
    kill.uid = take_int(rest);
    if (!consume(rest, ", (")) return false;
    const auto close = rest.rfind(") total-vm:");
    if (close == npos) return false;
    kill.pid = *pid;
    kill.comm = std::string(rest.substr(0, close));
    tail = rest.substr(close);
  } else if (!read_pid_and_comm(rest, ") total-vm:", kill.pid, kill.comm, tail)) {
    return false;
  }
  kill.origin = std::move(*origin);
  const auto old_uid = kill.uid;
  read_kill_sizes(tail, kill);
  if (!kill.uid) kill.uid = old_uid;
  return true;
}

void correct_pgtables_units(OomKill& kill) {
  if (!kill.pgtables_kb) return;
  const std::uint64_t printed = *kill.pgtables_kb;
  std::optional<bool> bytes;
  for (const OomTask& task : kill.tasks) {
    if (task.pid == kill.pid && task.pgtables_bytes) bytes = *task.pgtables_bytes == printed && printed >= 4096;
  }
  if (!bytes && kill.total_vm_kb) bytes = printed % 4096 == 0 && printed > *kill.total_vm_kb / 8;
  if (bytes.value_or(false)) kill.pgtables_kb = printed / 1024;
}

std::optional<SacrificeLine> parse_sacrifice_line(std::string_view message) {
  static constexpr std::string_view anchor = "Kill process ";
  const auto at = message.find(anchor);
  if (at == npos || message.find(" or sacrifice child") == npos) return std::nullopt;
  auto origin = origin_before(message, at);
  if (!origin) return std::nullopt;
  SacrificeLine line;
  std::string_view tail;
  if (!read_pid_and_comm(message.substr(at + anchor.size()), ") score ", line.pid, line.comm, tail)) {
    return std::nullopt;
  }
  line.origin = std::move(*origin);
  if (auto score = u64_after(tail, ") score "); score && *score <= 0xffffffffULL) {
    line.score = static_cast<unsigned>(*score);
  }
  return line;
}

std::optional<std::string> parse_oom_group(std::string_view message) {
  static constexpr std::string_view tail = " are going to be killed due to memory.oom.group set";
  if (!consume(message, "Tasks in ")) return std::nullopt;
  const auto at = message.rfind(tail);
  if (at == npos) return std::nullopt;
  return std::string(message.substr(0, at));
}

std::optional<int> parse_reaped_pid(std::string_view message) {
  if (!consume(message, "oom_reaper: reaped process ")) return std::nullopt;
  return take_int(message);
}

}  // namespace ftdiag::parse::detail
