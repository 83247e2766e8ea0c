// Plain log files, post-mortem: whatever text a job left that ftdiag did not
// write (a console saved with `tee`, nohup.out, a Slurm output, a pasted
// excerpt), recognised by content, not by name. Each is read in one
// streaming pass (collectors/log_file_scan.h) into the host's `logs`; kernel
// messages found in them join the host's kernel evidence.
//
// Not read as logs: configs and source files (by extension; other
// collectors read configs), binaries (by their first bytes), kernel-log
// files (the kernel-log collector reads them whole), checkpoint folders and
// the run folders of `ftdiag run`.
#pragma once

#include "collectors/collector.h"

namespace ftdiag::collectors {

class LogFilesCollector final : public Collector {
 public:
  std::string_view name() const override { return "log-files"; }
  std::string_view section() const override { return "hosts[].logs"; }
  Mode mode() const override { return Mode::post_mortem; }
  std::string_view looks_for() const override {
    return "log files: any text a job printed (a saved console, nohup.out, a launcher's or Slurm's output)";
  }
  bool recognises(const Inventory& inventory) const override;
  evidence::CollectorReport collect(const Inventory& inventory, const CollectContext& context,
                                    evidence::EvidenceDocument& document) const override;
};

// Whether the file at `path` is read as a log: a text file that is not a
// config, source file or kernel log.
bool is_plain_log(const std::filesystem::path& path);

}  // namespace ftdiag::collectors
