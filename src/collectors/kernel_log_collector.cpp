#include "collectors/kernel_log_collector.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <limits>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/clock.h"
#include "base/read_file.h"
#include "base/unique_fd.h"
#include "collect/host/host_name.h"
#include "collect/host/kernel_log_reader.h"
#include "collectors/source_host.h"
#include "evidence/kernel_events.h"
#include "evidence/run_file_names.h"

namespace ftdiag::collectors {

namespace fs = std::filesystem;
using evidence::EvidenceDocument;
using evidence::KernelLogEvidence;
using evidence::Provenance;

namespace {

// Kernel logs are read in pieces of this size, whatever their size; a line
// is kept up to kMaxKernelLineBytes.
constexpr std::size_t kReadBytes = std::size_t{1} << 20;
constexpr std::size_t kMaxKernelLineBytes = 64 * 1024;
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

std::optional<evidence::KernelLogEvents::Window> events_window(const std::optional<Window>& window) {
  if (!window) return std::nullopt;
  return evidence::KernelLogEvents::Window{window->from, window->to};
}

// Cuts what is read into lines, whatever the size of the pieces: a line is
// kept up to kMaxKernelLineBytes (printk's limit is 1 KiB; the rest of a
// longer one is garbage or a paste gone wrong), so memory stays bounded
// whatever the file holds.
class LineCutter {
 public:
  template <class Sink>
  void feed(std::string_view piece, Sink&& sink) {
    while (!piece.empty()) {
      const auto newline = piece.find('\n');
      const std::string_view part = piece.substr(0, newline);
      if (!skipping_) {
        const std::size_t room = kMaxKernelLineBytes - line_.size();
        line_.append(part.substr(0, room));
        if (part.size() > room) skipping_ = true;
      }
      if (newline == std::string_view::npos) return;
      sink(std::string_view(line_));
      line_.clear();
      skipping_ = false;
      piece.remove_prefix(newline + 1);
    }
  }

  template <class Sink>
  void finish(Sink&& sink) {
    if (!line_.empty()) sink(std::string_view(line_));
    line_.clear();
  }

 private:
  std::string line_;
  bool skipping_ = false;
};

// Reads fd to its end in pieces, each line to `events`. Missing when a read
// fails (what was read before is kept in `events`).
std::optional<Missing> stream_lines(int fd, const std::string& what, evidence::KernelLogEvents& events) {
  std::unique_ptr<char[]> buffer(new char[kReadBytes]);
  LineCutter cutter;
  auto sink = [&](std::string_view line) { events.add_text_line(line); };
  for (;;) {
    const ssize_t n = ::read(fd, buffer.get(), kReadBytes);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return missing_from_errno(errno, "read " + what);
    if (n == 0) break;
    cutter.feed(std::string_view(buffer.get(), static_cast<std::size_t>(n)), sink);
  }
  cutter.finish(sink);
  return std::nullopt;
}

// /dev/kmsg holds the records since boot that the ring buffer still has.
Fact<KernelLogEvidence> read_kmsg(const fs::path& device, const std::optional<Window>& window) {
  auto reader = collect::KernelLogReader::open(device, collect::KernelLogReader::From::oldest);
  if (!reader) return reader.missing();
  KernelLogEvidence kernel;
  kernel.from = Provenance{.collector = "kernel-log", .file = device.string()};
  kernel.boot_time = boot_wall_time();
  evidence::KernelLogEvents events(kernel.boot_time, kernel.from, events_window(window));
  std::uint64_t number = 0;
  reader->drain([&](std::string_view record) {
    auto line = parse::decode_kmsg_record(record);
    if (!line) return;
    line->line_number = ++number;
    events.add_line(*line);
  });
  kernel.records = std::move(events).finish();
  for (auto& event : kernel.records) event.from.line.reset();  // a record's place in the buffer, not a line of a file
  return kernel;
}

// The kernel's log device (character device 1:11), whatever its path.
bool is_kmsg_device(const struct stat& status) {
  return S_ISCHR(status.st_mode) && major(status.st_rdev) == 1 && minor(status.st_rdev) == 11;
}

std::string not_a_regular_file(const fs::path& file) {
  return file.string() + " is not a regular file (a folder, a device or a FIFO): give a file holding the kernel's log";
}

Fact<KernelLogEvidence> read_file_source(const fs::path& file, const std::string& collector,
                                         const std::optional<Window>& window) {
  // O_NONBLOCK: a FIFO planted in place of a log must not hang the reader.
  UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd.valid()) return missing_from_errno(errno, "open " + file.string());
  struct stat status {};
  if (::fstat(fd.get(), &status) != 0) return missing_from_errno(errno, "stat " + file.string());
  if (is_kmsg_device(status)) return read_kmsg(file, window);
  if (!S_ISREG(status.st_mode)) return Missing{MissingReason::unparseable, not_a_regular_file(file)};
  ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
  // A file from another machine: its printk stamps cannot be placed without
  // that machine's boot time, so only wall-clock renderings get times.
  KernelLogEvidence kernel;
  kernel.from = Provenance{.collector = collector, .file = file.string()};
  evidence::KernelLogEvents events(std::nullopt, kernel.from, events_window(window));
  if (auto failed = stream_lines(fd.get(), file.string(), events); failed && events.text_lines() == 0) return *failed;
  kernel.records = std::move(events).finish();
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
  KernelLogEvidence kernel;
  kernel.from = Provenance{.collector = "kernel-log", .command = command.substr(0, command.find(" 2>"))};
  evidence::KernelLogEvents events(std::nullopt, kernel.from, events_window(window));
  stream_lines(::fileno(pipe), "journalctl's output", events);
  const int status = ::pclose(pipe);
  if (events.text_lines() == 0) {
    return Missing{MissingReason::not_present,
                   status == 0 ? "journalctl has no kernel messages for the runs' time" : "journalctl -k failed (no journal?)"};
  }
  kernel.records = std::move(events).finish();
  return kernel;
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

std::vector<fs::path> kernel_log_files_in(const Inventory& inventory) {
  std::vector<fs::path> files;
  if (inventory.root_is_file()) {
    const auto& file = inventory.root();
    if (!inventory.files().empty() && (is_kernel_log_name(file) || looks_like_kernel_log(file))) files.push_back(file);
    return files;
  }
  // Sub-folders too: a multi-node job's folder keeps one per node (node0/kernel.log).
  for (const auto& file : inventory.files()) {
    if (!file.in_checkpoint && is_kernel_log_name(file.path)) files.push_back(file.path);
  }
  return files;
}

}  // namespace

std::optional<std::string> kernel_log_refusal(const fs::path& file) {
  struct stat status {};
  if (::stat(file.c_str(), &status) != 0) return std::nullopt;  // the reader says why it cannot be opened
  if (S_ISREG(status.st_mode) || is_kmsg_device(status)) return std::nullopt;
  return not_a_regular_file(file);
}

bool is_kernel_log_name(const fs::path& file) {
  const std::string name = file.filename().string();
  if (name == evidence::kJournalFileName || name == evidence::kConsoleFileName) return false;  // ftdiag's own
  for (const char* part : {"dmesg", "kern.log", "kernel.log", "kernel-log", "messages", "syslog", "kmsg", "journalctl"}) {
    if (name.find(part) != std::string::npos) return true;
  }
  return false;
}

bool KernelLogCollector::recognises(const Inventory& inventory) const {
  return !kernel_log_files_in(inventory).empty() || !inventory.run_folders().empty();
}

evidence::CollectorReport KernelLogCollector::collect(const Inventory& inventory, const CollectContext& context,
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
  for (const auto& file : kernel_log_files_in(inventory)) read_any |= take(file.string(), read_file_source(file, "kernel-log", window));
  if (read_any) return report;
  if (context.read_this_host && window) {
    if (recorded_since_this_boot(document)) {
      if (take("/dev/kmsg", read_kmsg("/dev/kmsg", window))) return report;
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
