#include "evidence/kernel_events.h"

#include <algorithm>
#include <csignal>

#include <fmt/format.h>

#include "base/units.h"
#include "parse/kernel/x86_fault_codes.h"
#include "parse/kernel/xid_catalog.h"

namespace ftdiag::evidence {

namespace {

constexpr std::uint64_t kKiB = 1024;
// The task table prints pages; x86-64 and most arm64 kernels use 4 KiB pages
// (64 KiB arm64 kernels are rare on training nodes and say so in the name).
constexpr std::uint64_t kPageBytes = 4096;
constexpr std::size_t kTopConsumers = 5;

std::optional<double> wall_time(const parse::KernelStamp& stamp, std::optional<double> boot_time) {
  if (stamp.wall_time) return stamp.wall_time;
  if (stamp.monotonic_us && boot_time) return *boot_time + static_cast<double>(*stamp.monotonic_us) / 1e6;
  return std::nullopt;
}

void put_kib(LogEvent& event, const char* key, const std::optional<std::uint64_t>& kib) {
  if (kib) event.details[key] = std::to_string(*kib * kKiB);
}

std::string oom_scope(const parse::OomKill& kill) {
  if (kill.constraint == "CONSTRAINT_MEMCG" || !kill.oom_memcg.empty() || !kill.limit_of.empty()) return "cgroup";
  if (kill.origin.find("cgroup") != std::string::npos) return "cgroup";
  if (kill.constraint == "CONSTRAINT_NONE" || kill.global_oom) return "node";
  if (kill.constraint == "CONSTRAINT_CPUSET" || kill.constraint == "CONSTRAINT_MEMORY_POLICY") return "numa";
  if (kill.origin.rfind("Out of memory", 0) == 0) return "node";
  return "";
}

// "5932 a b) (c 70.1 MiB, 5931 0123456789abcde 26.0 MiB": the largest
// processes of the report's task table, by resident memory.
std::string top_consumers(const std::vector<parse::OomTask>& tasks) {
  std::vector<const parse::OomTask*> sorted;
  for (const auto& t : tasks) {
    if (t.rss_pages) sorted.push_back(&t);
  }
  std::stable_sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return *a->rss_pages > *b->rss_pages; });
  std::string text;
  for (std::size_t i = 0; i < sorted.size() && i < kTopConsumers; ++i) {
    if (!text.empty()) text += ", ";
    text += fmt::format("{} {} {}", sorted[i]->pid, sorted[i]->name, format_bytes(*sorted[i]->rss_pages * kPageBytes));
  }
  return text;
}

LogEvent from_oom(const parse::OomKill& kill) {
  LogEvent event{.kind = "oom-kill"};
  if (kill.pid > 0) event.pid = kill.pid;
  event.signal = SIGKILL;
  auto& d = event.details;
  d["comm"] = kill.comm;
  if (!kill.origin.empty()) d["origin"] = kill.origin;
  if (auto scope = oom_scope(kill); !scope.empty()) d["scope"] = scope;
  if (!kill.constraint.empty()) d["constraint"] = kill.constraint;
  if (!kill.oom_memcg.empty()) d["oom_memcg"] = kill.oom_memcg;
  if (!kill.task_memcg.empty()) d["task_memcg"] = kill.task_memcg;
  if (!kill.limit_of.empty()) {
    d["limit_of"] = kill.limit_of;
    // Before 4.19 the limiting cgroup is named only here.
    if (kill.oom_memcg.empty()) d["oom_memcg"] = kill.limit_of;
  }
  put_kib(event, "total_vm_bytes", kill.total_vm_kb);
  put_kib(event, "anon_rss_bytes", kill.anon_rss_kb);
  put_kib(event, "file_rss_bytes", kill.file_rss_kb);
  put_kib(event, "shmem_rss_bytes", kill.shmem_rss_kb);
  put_kib(event, "usage_bytes", kill.usage_kb);
  // "limit 9007199254740988kB" is the kernel's "no limit".
  if (kill.limit_kb && *kill.limit_kb < (std::uint64_t{1} << 50)) put_kib(event, "limit_bytes", kill.limit_kb);
  if (kill.oom_score_adj) d["oom_score_adj"] = std::to_string(*kill.oom_score_adj);
  if (!kill.trigger_comm.empty()) d["trigger_comm"] = kill.trigger_comm;
  if (kill.trigger_pid) d["trigger_pid"] = std::to_string(*kill.trigger_pid);
  if (kill.order) d["order"] = std::to_string(*kill.order);
  if (auto top = top_consumers(kill.tasks); !top.empty()) d["top_consumers"] = top;
  if (!kill.tasks.empty()) d["tasks"] = std::to_string(kill.tasks.size());
  if (kill.oom_group) d["oom_group"] = "true";
  if (kill.reaped) d["reaped"] = "true";
  // Whether the report came whole: the rate limiter drops all but the
  // "Killed process" line in an OOM storm.
  if (kill.victim_inferred) {
    d["report"] = std::string(kReportWithoutVictim);
  } else if (kill.kill_line_missing) {
    d["report"] = std::string(kReportWithoutKillLine);
  } else {
    d["report"] = (kill.trigger_comm.empty() && kill.constraint.empty() && kill.tasks.empty()) ? "kill line only" : "full";
  }
  return event;
}

std::string hex(std::uint64_t value) { return fmt::format("0x{:x}", value); }

LogEvent from_fault(const parse::KernelFault& fault) {
  LogEvent event{.kind = "fault"};
  event.pid = fault.pid;
  event.signal = fault.signal;
  auto& d = event.details;
  d["fault"] = fault.kind;
  d["comm"] = fault.comm;
  if (!fault.trap.empty()) d["trap"] = fault.trap;
  if (fault.address) d["address"] = hex(*fault.address);
  if (fault.ip) d["ip"] = hex(*fault.ip);
  if (fault.sp) d["sp"] = hex(*fault.sp);
  if (fault.error_code) {
    d["error_code"] = hex(*fault.error_code);
    if (fault.kind == "segfault") d["error_meaning"] = parse::describe_page_fault_error(*fault.error_code);
  }
  if (!fault.object.empty()) d["object"] = fault.object;
  if (fault.object_offset) d["object_offset"] = hex(*fault.object_offset);
  if (fault.cpu) d["cpu"] = std::to_string(*fault.cpu);
  if (!fault.detail.empty()) d["detail"] = fault.detail;
  // A fault at an address near the stack pointer is a stack overflow's
  // guard page (recursion); one below 64 KiB a null pointer.
  if (fault.address && fault.sp) {
    const auto distance = *fault.address > *fault.sp ? *fault.address - *fault.sp : *fault.sp - *fault.address;
    if (distance < 64 * kKiB) d["near_stack_pointer"] = "true";
  }
  if (fault.address && *fault.address < 64 * kKiB) d["null_pointer"] = "true";
  return event;
}

LogEvent from_xid(const parse::GpuXid& xid) {
  LogEvent event{.kind = "gpu-xid"};
  event.pid = xid.pid;
  auto& d = event.details;
  d["pci"] = xid.pci;
  if (!xid.process_name.empty()) d["process_name"] = xid.process_name;
  if (!xid.message.empty()) d["message"] = xid.message.substr(0, kMaxEventText);
  if (xid.pcie_error) {
    d["meaning"] = "a fatal, uncorrectable PCIe error on the GPU's link (the kernel's AER report), which the NVIDIA driver cannot recover from";
    d["origin"] = "hardware";
    d["action"] = "Take the node out of service and have the GPU, its riser, slot and PCIe link checked (lspci -vv on the GPU and the port above it, the BMC's event log); a reboot brings the GPU back only until the link fails again";
    return event;
  }
  const int code = xid.code.value_or(79);  // a bare "fallen off the bus" line is Xid 79's event
  d["xid"] = std::to_string(code);
  if (auto meaning = parse::xid_meaning(code)) {
    d["meaning"] = std::string(meaning->name);
    d["origin"] = std::string(parse::to_string(meaning->origin));
    d["action"] = std::string(meaning->action);
  }
  return event;
}

LogEvent from_suppressed(const parse::KernelSuppressed& s) {
  LogEvent event{.kind = "kernel-rate-limited"};
  event.details["source"] = s.source;
  event.details["count"] = std::to_string(s.count);
  return event;
}

template <class Parsed>
LogEvent convert(const Parsed& parsed) {
  if constexpr (std::is_same_v<Parsed, parse::OomKill>) return from_oom(parsed);
  else if constexpr (std::is_same_v<Parsed, parse::KernelFault>) return from_fault(parsed);
  else if constexpr (std::is_same_v<Parsed, parse::GpuXid>) return from_xid(parsed);
  else return from_suppressed(parsed);
}

constexpr std::string_view kKindNames[] = {"oom-kill", "fault", "gpu-xid", "kernel-rate-limited"};
static_assert(std::size(kKindNames) == parse::kKernelEventKinds);

}  // namespace

KernelLogEvents::KernelLogEvents(std::optional<double> boot_time, Provenance from, std::optional<Window> window,
                                 std::size_t keep_per_end)
    : boot_time_(boot_time), from_(std::move(from)) {
  parse::KernelEventStore::Admit admit;
  if (window) {
    admit = [boot_time, window = *window](const parse::KernelStamp& stamp) {
      // Without a time an event cannot be placed out of the window: kept.
      const auto time = wall_time(stamp, boot_time);
      return !time || (*time >= window.from && *time <= window.to);
    };
  }
  store_ = std::make_unique<parse::KernelEventStore>(keep_per_end, kMaxEventText, std::move(admit));
  scanner_ = std::make_unique<parse::KernelLineScanner>(*store_);
}

KernelLogEvents::~KernelLogEvents() = default;

void KernelLogEvents::add_text_line(std::string_view line) {
  if (!splitter_) splitter_ = std::make_unique<parse::KernelTextSplitter>();
  splitter_->feed(line, ++text_lines_);
  for (const auto& split : splitter_->take()) scanner_->feed(split);
}

void KernelLogEvents::add_line(const parse::KernelLine& line) { scanner_->feed(line); }

std::vector<LogEvent> KernelLogEvents::finish() && {
  scanner_->finish();
  std::vector<LogEvent> events;
  std::optional<double> last_time;
  for (auto& kept : store_->take()) {
    std::visit(
        [&](const auto& p) {
          LogEvent event = convert(p);
          event.time = wall_time(p.stamp, boot_time_);
          event.from = from_;
          // A live record's number is its place among the run's kernel records,
          // not a line of any file.
          if (from_.collector != "ftdiag-run") event.from.line = p.line_number;
          event.text = std::move(kept.text);
          if (p.stamp.sequence) event.details["sequence"] = std::to_string(*p.stamp.sequence);
          if (p.stamp.monotonic_us) event.details["monotonic_us"] = std::to_string(*p.stamp.monotonic_us);
          if (event.time) last_time = event.time;
          events.push_back(std::move(event));
        },
        kept.event);
  }
  // A flood (a GPU logging Xids for hours) keeps its first and last records
  // of each kind; how many were left out between is said.
  const auto& left_out = store_->left_out();
  for (std::size_t kind = 0; kind < left_out.size(); ++kind) {
    if (left_out[kind] == 0) continue;
    LogEvent event{.kind = "kernel-records-left-out",
                   .time = last_time,
                   .from = from_,
                   .text = fmt::format("{} more {} record(s) left out between the first {} and the last {}",
                                       left_out[kind], kKindNames[kind], store_->keep_per_end(),
                                       store_->keep_per_end())};
    event.details["of_kind"] = std::string(kKindNames[kind]);
    event.details["count"] = std::to_string(left_out[kind]);
    event.details["kept_per_end"] = std::to_string(store_->keep_per_end());
    events.push_back(std::move(event));
  }
  return events;
}

std::vector<LogEvent> kernel_log_events(const std::vector<parse::KernelLine>& lines, std::optional<double> boot_time,
                                        const Provenance& from) {
  KernelLogEvents events(boot_time, from, std::nullopt, parse::KernelEventStore::kKeepAll);
  for (const auto& line : lines) events.add_line(line);
  return std::move(events).finish();
}

KernelLogEvidence kernel_evidence_from_records(const std::vector<KernelLogged>& records, std::optional<double> boot_time) {
  KernelLogEvidence evidence;
  evidence.from = Provenance{.collector = "ftdiag-run", .file = "/dev/kmsg"};
  evidence.boot_time = boot_time;
  std::vector<parse::KernelLine> lines;
  lines.reserve(records.size());
  std::uint64_t number = 0;
  for (const auto& record : records) {
    ++number;
    auto line = parse::decode_kmsg_record(record.record);
    if (!line) continue;
    line->line_number = number;
    lines.push_back(std::move(*line));
  }
  evidence.records = kernel_log_events(lines, boot_time, evidence.from);
  return evidence;
}

}  // namespace ftdiag::evidence
