// The kernel's log as evidence: parsed lines (parse/kernel/kernel_log.h) become
// LogEvents with wall-clock times and the values rules read by name
// (docs/evidence.md lists the kinds and their details).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "evidence/document.h"
#include "parse/kernel/kernel_log.h"
#include "parse/kernel/kernel_stream.h"

namespace ftdiag::evidence {

// At most this many kernel records are kept per run or source; the rest is
// counted (a host flooding its log must not grow the evidence without end).
inline constexpr std::size_t kMaxKernelRecords = 20000;

// A kernel log read from a file or a pipe keeps at most this many events of
// each kind from its start and as many from its end; the ones between are
// counted in a `kernel-records-left-out` event per kind (kMaxKernelRecords
// in all: four kinds, two ends).
inline constexpr std::size_t kKernelEventsKeptPerEnd = kMaxKernelRecords / 8;

// The events of a kernel log read in pieces, in bounded memory whatever its
// size: its lines of text, or its already split lines (/dev/kmsg records),
// go in as they are read.
// An OOM kill's `report` detail when the report was cut short after its
// oom-kill summary, before the kill line (parse::OomKill::kill_line_missing).
inline constexpr std::string_view kReportWithoutKillLine = "summary only";
// ... and when the report was cut before it named its victim (its summary cut
// before the pid, or the report cut after its header, or a memory cgroup's kill
// line cut after its origin): the pid is the task-table row the kernel's
// badness rule ranks first, or absent.
inline constexpr std::string_view kReportWithoutVictim = "cut before its victim";

class KernelLogEvents {
 public:
  struct Window {
    double from = 0;
    double to = 0;
  };
  // `boot_time` places stamps that only carry the printk clock; events
  // placed outside `window` are left out (those without a time are kept).
  KernelLogEvents(std::optional<double> boot_time, Provenance from, std::optional<Window> window = std::nullopt,
                  std::size_t keep_per_end = kKernelEventsKeptPerEnd);
  ~KernelLogEvents();

  // One line of text, without its "\n"; lines are numbered from 1 in the order given.
  void add_text_line(std::string_view line);
  // One line already split (its line_number as it should be reported).
  void add_line(const parse::KernelLine& line);
  std::uint64_t text_lines() const { return text_lines_; }

  std::vector<LogEvent> finish() &&;

 private:
  std::optional<double> boot_time_;
  Provenance from_;
  std::unique_ptr<parse::KernelEventStore> store_;
  std::unique_ptr<parse::KernelLineScanner> scanner_;
  std::unique_ptr<parse::KernelTextSplitter> splitter_;
  std::uint64_t text_lines_ = 0;
};

// The events of `lines`. `boot_time` (wall clock of boot) places stamps that
// only carry the printk clock; without it such events have no time.
std::vector<LogEvent> kernel_log_events(const std::vector<parse::KernelLine>& lines, std::optional<double> boot_time,
                                        const Provenance& from);

// The kernel records a run read live (journal "kernel" records), as evidence.
KernelLogEvidence kernel_evidence_from_records(const std::vector<KernelLogged>& records, std::optional<double> boot_time);

}  // namespace ftdiag::evidence
