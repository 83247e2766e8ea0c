// The kernel's log as evidence: parsed lines (parse/kernel_log.h) become
// LogEvents with wall-clock times and the values rules read by name
// (docs/evidence.md lists the kinds and their details).
#pragma once

#include <optional>
#include <vector>

#include "evidence/document.h"
#include "parse/kernel_log.h"

namespace ftdiag::evidence {

// At most this many kernel records are kept per run or source; the rest is
// counted (a host flooding its log must not grow the evidence without end).
inline constexpr std::size_t kMaxKernelRecords = 20000;

// The events of `lines`. `boot_time` (wall clock of boot) places stamps that
// only carry the printk clock; without it such events have no time.
std::vector<LogEvent> kernel_log_events(const std::vector<parse::KernelLine>& lines, std::optional<double> boot_time,
                                        const Provenance& from);

// The kernel records a run read live (journal "kernel" records), as evidence.
KernelLogEvidence kernel_evidence_from_records(const std::vector<KernelLogged>& records, std::optional<double> boot_time);

}  // namespace ftdiag::evidence
