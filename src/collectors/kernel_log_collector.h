// The kernel's log, post-mortem: OOM kills, faults and GPU Xids around the
// job's time. Sources, first readable wins:
//   1. files given with --kernel-log (a post-mortem on another machine);
//   2. kernel-log files in the analyzed path (dmesg*, kern.log*, messages*,
//      syslog*, *.kmsg), in any rendering (parse/kernel/kernel_log.h);
//   3. for a job directory recorded on this host since its last boot,
//      /dev/kmsg as it is now;
//   4. journalctl -k over the runs' time; /var/log/kern.log; /var/log/messages.
// When none can be read the host's kernel evidence says which were tried and
// why each failed (dmesg_restrict, a container without /dev/kmsg).
#pragma once

#include <optional>
#include <string>

#include "collectors/collector.h"

namespace ftdiag::collectors {

class KernelLogCollector final : public Collector {
 public:
  std::string_view name() const override { return "kernel-log"; }
  std::string_view section() const override { return "hosts[].kernel"; }
  Mode mode() const override { return Mode::post_mortem; }
  std::string_view looks_for() const override {
    return "a kernel log file (dmesg output, journalctl -k, kern.log, messages) in PATH or given with --kernel-log";
  }
  bool recognises(const Inventory& inventory) const override;
  bool asked_for(const CollectContext& context) const override { return !context.kernel_logs.empty(); }
  evidence::CollectorReport collect(const Inventory& inventory, const CollectContext& context,
                                    evidence::EvidenceDocument& document) const override;
};

// Why `file`, named as a kernel log, cannot be read as one: it is not a
// regular file (a folder, a FIFO, /dev/zero), which would never end or would
// end in anything but a log. The kernel's own log device (/dev/kmsg, by its
// device number) is read as it is now. nullopt when it can be read.
std::optional<std::string> kernel_log_refusal(const std::filesystem::path& file);

// Whether a file's name says it holds a kernel log.
bool is_kernel_log_name(const std::filesystem::path& file);

}  // namespace ftdiag::collectors
