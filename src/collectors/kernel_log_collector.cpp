#include "collectors/kernel_log_collector.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/clock.h"
#include "base/read_file.h"
#include "collect/host_name.h"
#include "collect/kernel_log_reader.h"
#include "collectors/evidence_walk.h"
#include "collectors/source_host.h"
#include "evidence/job_reader.h"
#include "evidence/kernel_events.h"

namespace ftdiag::collectors {

namespace fs = std::filesystem;
using evidence::EvidenceDocument;
using evidence::KernelLogEvidence;
using evidence::Provenance;

namespace {

constexpr std::size_t kMaxKernelLogBytes = std::size_t{1} << 30;
// Kernel records this long before a run's start or after its end still
// belong to it: an OOM report is logged around the kill, a Xid before the
// crash it causes.
constexpr double kBeforeRunSeconds = 60;
constexpr double kAfterRunSeconds = 300;
// A run was recorded since this host's last boot when its boot time agrees
// with the host's (both are wall-clock readings: allow clock adjustments).
constexpr double kSameBootTolerance = 5;

struct Window {
  double from = 0;
  double to = std::numeric_limits<double>::max();
};

std::optional<Window> runs_window(const EvidenceDocument& document) {
  std::optional<Window> window;
  evidence::for_each_run(document, [&](const evidence::RunRef&, const evidence::RunEvidence& run) {
    double end = run.ended ? run.ended->time : run.started.time;
    if (!run.timeline.empty()) end = std::max(end, run.timeline.back().time);
    for (const auto& p : run.processes) {
      if (p.death) end = std::max(end, p.death->time);
    }
    if (!window) window = Window{run.started.time, end};
    window->from = std::min(window->from, run.started.time);
    window->to = std::max(window->to, end);
  });
  if (window) {
    window->from -= kBeforeRunSeconds;
    window->to += kAfterRunSeconds;
  }
  return window;
}

KernelLogEvidence evidence_from_text(std::string_view text, Provenance from, std::optional<double> boot_time,
                                     const std::optional<Window>& window) {
  KernelLogEvidence kernel;
  kernel.from = std::move(from);
  kernel.boot_time = boot_time;
  const auto lines = parse::split_kernel_log(text);
  for (auto& event : evidence::kernel_log_events(lines, boot_time, kernel.from)) {
    // Without a time an event cannot be placed out of the window: kept.
    if (window && event.time && (*event.time < window->from || *event.time > window->to)) continue;
    if (kernel.records.size() >= evidence::kMaxKernelRecords) break;
    kernel.records.push_back(std::move(event));
  }
  return kernel;
}

Fact<KernelLogEvidence> read_file_source(const fs::path& file, const std::string& collector,
                                         const std::optional<Window>& window) {
  auto text = read_small_file(file, kMaxKernelLogBytes);
  if (!text) return text.missing();
  // A file from another machine: its printk stamps cannot be placed without
  // that machine's boot time, so only wall-clock renderings get times.
  return evidence_from_text(text.value(), Provenance{.collector = collector, .file = file.string()}, std::nullopt, window);
}

// /dev/kmsg holds the records since boot that the ring buffer still has.
Fact<KernelLogEvidence> read_kmsg(const std::optional<Window>& window) {
  auto reader = collect::KernelLogReader::open("/dev/kmsg", collect::KernelLogReader::From::oldest);
  if (!reader) return reader.missing();
  std::vector<parse::KernelLine> lines;
  std::uint64_t number = 0;
  reader->drain([&](std::string_view record) {
    auto line = parse::decode_kmsg_record(record);
    if (!line) return;
    line->line_number = ++number;
    lines.push_back(std::move(*line));
  });
  KernelLogEvidence kernel;
  kernel.from = Provenance{.collector = "kernel-log", .file = "/dev/kmsg"};
  kernel.boot_time = boot_wall_time();
  for (auto& event : evidence::kernel_log_events(lines, kernel.boot_time, kernel.from)) {
    event.from.line.reset();  // a record's place in the buffer, not a line of a file
    if (window && event.time && (*event.time < window->from || *event.time > window->to)) continue;
    kernel.records.push_back(std::move(event));
  }
  return kernel;
}

Fact<KernelLogEvidence> read_journalctl(const Window& window) {
  if (::access("/usr/bin/journalctl", X_OK) != 0 && ::access("/bin/journalctl", X_OK) != 0) {
    return Missing{MissingReason::not_present, "journalctl is not installed"};
  }
  // Numbers only in the command line: nothing of the input reaches a shell.
  const std::string command = fmt::format("journalctl -k -o json --no-pager --since @{:.0f} --until @{:.0f} 2>/dev/null",
                                          std::max(0.0, window.from), window.to);
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return missing_from_errno(errno, "run journalctl");
  std::string text;
  char buffer[65536];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0 && text.size() < kMaxKernelLogBytes) text.append(buffer, n);
  const int status = ::pclose(pipe);
  if (text.empty()) {
    return Missing{MissingReason::not_present,
                   status == 0 ? "journalctl has no kernel messages for the runs' time" : "journalctl -k failed (no journal?)"};
  }
  return evidence_from_text(text, Provenance{.collector = "kernel-log", .command = command.substr(0, command.find(" 2>"))},
                            std::nullopt, window);
}

bool recorded_since_this_boot(const EvidenceDocument& document) {
  bool found = false;
  const double boot = boot_wall_time();
  const std::string host = collect::host_name();
  evidence::for_each_run(document, [&](const evidence::RunRef&, const evidence::RunEvidence& run) {
    if (run.started.host == host && run.started.boot_time && std::abs(*run.started.boot_time - boot) < kSameBootTolerance) {
      found = true;
    }
  });
  return found;
}

// A file given by itself, whatever its name: does its start read like a
// kernel log? (A pasted excerpt saved as "crash.txt".)
bool looks_like_kernel_log(const fs::path& file) {
  auto head = read_small_file(file, 64 * 1024);
  if (!head) return false;
  for (const char* anchor : {"invoked oom-killer", "Killed process", "oom-kill:constraint=", "]: segfault at ", "traps: ",
                             "NVRM: Xid", "kernel: ", "potentially unexpected fatal signal"}) {
    if (head->find(anchor) != std::string::npos) return true;
  }
  return false;
}

std::vector<fs::path> kernel_log_files_in(const fs::path& path) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    if (is_kernel_log_name(path) || looks_like_kernel_log(path)) files.push_back(path);
    return files;
  }
  // Sub-folders too: a multi-node job's folder keeps one per node (node0/kernel.log).
  for (auto& file : walk_evidence_files(path).files) {
    if (is_kernel_log_name(file)) files.push_back(std::move(file));
  }
  return files;
}

}  // namespace

bool is_kernel_log_name(const fs::path& file) {
  const std::string name = file.filename().string();
  if (name == "journal.jsonl" || name == "console.log") return false;  // ftdiag's own
  for (const char* part : {"dmesg", "kern.log", "kernel.log", "kernel-log", "messages", "syslog", "kmsg", "journalctl"}) {
    if (name.find(part) != std::string::npos) return true;
  }
  return false;
}

bool KernelLogCollector::recognises(const fs::path& path) const {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return is_kernel_log_name(path) || looks_like_kernel_log(path);
  return !kernel_log_files_in(path).empty() || evidence::is_job_directory(path);
}

evidence::CollectorReport KernelLogCollector::collect(const fs::path& path, const CollectContext& context,
                                                      EvidenceDocument& document) const {
  evidence::CollectorReport report{.name = std::string(name()), .section = std::string(section())};
  const auto window = runs_window(document);
  std::vector<std::string> failures;
  auto take = [&](const std::string& source, Fact<KernelLogEvidence> kernel) {
    report.sources.push_back(source);
    if (!kernel) {
      failures.push_back(source + ": " + kernel.missing().detail);
      return false;
    }
    auto& host = host_of_path_sources(document);
    if (host.kernel) {
      // Several files (one per node, or rotated logs): their records together.
      auto& records = host.kernel.value().records;
      for (auto& record : kernel.value().records) records.push_back(std::move(record));
    } else {
      host.kernel = std::move(kernel);
    }
    return true;
  };
  bool read_any = false;
  for (const auto& file : context.kernel_logs) read_any |= take(file.string(), read_file_source(file, "kernel-log", std::nullopt));
  if (read_any) return report;
  for (const auto& file : kernel_log_files_in(path)) read_any |= take(file.string(), read_file_source(file, "kernel-log", window));
  if (read_any) return report;
  if (context.read_this_host && window) {
    if (recorded_since_this_boot(document)) {
      if (take("/dev/kmsg", read_kmsg(window))) return report;
    } else {
      failures.push_back("/dev/kmsg: the runs were recorded on another host or before its last boot");
    }
    if (take("journalctl -k", read_journalctl(*window))) return report;
    for (const char* file : {"/var/log/kern.log", "/var/log/messages"}) {
      if (take(file, read_file_source(file, "kernel-log", window))) return report;
    }
  }
  const std::string why = failures.empty() ? "no kernel log was found with the evidence (give one with --kernel-log FILE)"
                                           : fmt::format("no kernel log could be read: {}", fmt::join(failures, "; "));
  auto& host = host_of_path_sources(document);
  if (!host.kernel) host.kernel = Missing{MissingReason::not_present, why};
  report.outcome = Missing{MissingReason::not_present, why};
  return report;
}

}  // namespace ftdiag::collectors
