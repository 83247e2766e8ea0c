// scan_kernel_lines: the events in a kernel log. Most lines of a real log
// are none of ours, so each line first meets a cheap literal prefilter
// (memmem of a few anchor words); only lines that pass are parsed.
#include <cstring>

#include "parse/kernel/kernel_log.h"
#include "parse/kernel/kernel_oom.h"
#include "parse/kernel/kernel_oom_report.h"
#include "parse/kernel/kernel_stream.h"
#include "parse/kernel/kernel_text.h"

namespace ftdiag::parse {
namespace {

using namespace text;

bool contains(std::string_view haystack, std::string_view needle) {
  return ::memmem(haystack.data(), haystack.size(), needle.data(), needle.size()) != nullptr;
}

// Lines that only mean something inside an open OOM report.
bool report_continuation(std::string_view m) {
  return m.starts_with('[') || m.starts_with("CPU: ") || m.starts_with("Pid: ") ||
         m.starts_with("Memory cgroup stats for ") || contains(m, " mems_allowed=") ||
         contains(m.substr(0, 48), "mem_cgroup_out_of_memory+0x");
}

// The anchors sit near the start of their lines, after at most a comm
// (15 bytes), a pid and a fixed prefix: only that much is searched.
std::string_view head(std::string_view m, std::size_t bytes) { return m.substr(0, bytes); }

// "[   5165]  ..." or "[1234567] ...": a task table's row, not "[drm] ...".
bool looks_like_task_row(std::string_view m) {
  if (!m.starts_with('[')) return false;
  const auto digit = m.find_first_not_of(' ', 1);
  return digit != std::string_view::npos && digit < 12 && m[digit] >= '0' && m[digit] <= '9';
}

bool might_be_oom(std::string_view m) {
  const std::string_view start = head(m, 96);
  return contains(start, "oom") || contains(start, "Kill") || m.starts_with("memory: usage ") || m.starts_with("Memory cgroup out of memory") ||
         m.starts_with("Task in ");
}

bool might_be_fault(std::string_view m) {
  const std::string_view start = head(m, 128);
  return contains(start, "segfault at") || contains(start, " ip:") || contains(start, "]: unhandled ") ||
         contains(head(m, 320), "fatal signal");
}

// "show_signal_msg: 3 callbacks suppressed", "__ratelimit: 24 callbacks suppressed"
std::optional<KernelSuppressed> parse_suppressed(std::string_view message) {
  static constexpr std::string_view tail = " callbacks suppressed";
  message = trim_right(message);
  if (!message.ends_with(tail)) return std::nullopt;
  message.remove_suffix(tail.size());
  const auto colon = message.rfind(": ");
  if (colon == std::string_view::npos) return std::nullopt;
  auto count = to_u64(message.substr(colon + 2));
  if (!count) return std::nullopt;
  KernelSuppressed suppressed;
  suppressed.source = std::string(message.substr(0, colon));
  suppressed.count = *count;
  return suppressed;
}

// The bare "potentially unexpected fatal signal N." names no pid: the
// "CPU: .. PID: .. Comm:" and "RIP: 0033:0x..." lines right after it do.
class FatalSignalFollowUp {
 public:
  void expect(std::size_t event, std::size_t index) {
    event_ = event;
    until_ = index + 4;
    active_ = true;
  }

  bool read(std::string_view message, std::size_t index, KernelEventStore& events) {
    if (!active_) return false;
    if (index > until_) {
      active_ = false;
      return false;
    }
    auto* event = events.find(event_);
    auto* fault = event ? std::get_if<KernelFault>(event) : nullptr;
    if (!fault) return false;
    if (auto banner = detail::parse_dump_banner(message)) {
      if (fault->pid && *fault->pid != banner->pid) return false;
      fault->pid = banner->pid;
      fault->cpu = banner->cpu;
      if (fault->comm.empty()) fault->comm = std::move(banner->comm);
      return true;
    }
    if (consume(message, "RIP: 0033:")) {  // user-mode code segment
      fault->ip = take_hex(message);
      active_ = false;
      return true;
    }
    return false;
  }

 private:
  std::size_t event_ = 0, until_ = 0;
  bool active_ = false;
};

template <typename Event>
void stamp(Event& event, const KernelLine& line) {
  event.stamp = line.stamp;
  event.line_number = line.line_number;
}

}  // namespace

struct KernelLineScanner::State {
  explicit State(KernelEventStore& store) : events(store) {}
  KernelEventStore& events;
  detail::OomReportAssembler oom;
  FatalSignalFollowUp follow_up;
  std::size_t index = 0;
};

KernelLineScanner::KernelLineScanner(KernelEventStore& events) : state_(std::make_unique<State>(events)) {}
KernelLineScanner::~KernelLineScanner() = default;

void KernelLineScanner::feed(const KernelLine& line) {
  auto& [events, oom, follow_up, index] = *state_;
  const std::size_t at = index++;
  const std::string_view m = line.message;
  if (follow_up.read(m, at, events)) return;
  // A task-table row may also open a report: a paste that left out the
  // report's first lines (kernel_oom_report.h).
  if ((oom.any_open() && report_continuation(m)) || looks_like_task_row(m) || might_be_oom(m)) {
    if (oom.offer(line, at, events)) return;
  }
  if (might_be_fault(m)) {
    if (auto fault = parse_fault_line(m)) {
      stamp(*fault, line);
      const bool needs_pid = !fault->pid && fault->kind == "fatal-signal";
      const std::size_t id = events.add(std::move(*fault), m);
      if (needs_pid) follow_up.expect(id, at);
      return;
    }
  }
  if (contains(head(m, 128), "NVRM: ") || m.starts_with("nvidia ")) {
    if (auto xid = parse_xid_line(m)) {
      stamp(*xid, line);
      events.add(std::move(*xid), m);
      return;
    }
  }
  if (m.ends_with("suppressed") || m.ends_with("suppressed ")) {
    if (auto suppressed = parse_suppressed(m)) {
      stamp(*suppressed, line);
      events.add(std::move(*suppressed), m);
    }
  }
}

void KernelLineScanner::finish() { state_->oom.finish(state_->events); }

std::vector<KernelEvent> scan_kernel_lines(const std::vector<KernelLine>& lines) {
  KernelEventStore store(KernelEventStore::kKeepAll, 0);
  KernelLineScanner scanner(store);
  for (const auto& line : lines) scanner.feed(line);
  scanner.finish();
  std::vector<KernelEvent> events;
  for (auto& kept : store.take()) events.push_back(std::move(kept.event));
  return events;
}

}  // namespace ftdiag::parse
