#include "collectors/registry.h"

#include "collectors/checkpoint_dirs.h"
#include "collectors/config_files.h"
#include "collectors/core_dumps.h"
#include "collectors/crash_symbols.h"
#include "collectors/environment_reports.h"
#include "collectors/fault_symbols.h"
#include "collectors/journal_collector.h"
#include "collectors/kernel_log_collector.h"
#include "collectors/log_files.h"

namespace ftdiag::collectors {

const std::vector<const Collector*>& all_collectors() {
  static const JournalCollector journal;
  // The kernel log's reader places its records by the runs' times: after
  // the journal.
  static const KernelLogCollector kernel_log;
  // Kernel lines found in plain logs join the kernel log read before them.
  static const LogFilesCollector log_files;
  // After the journal, so that the reports go to the host whose runs are analyzed.
  static const EnvironmentReportsCollector environment_reports;
  // Configs and checkpoint folders left beside the job.
  static const ConfigFilesCollector configs;
  static const CheckpointDirsCollector checkpoints;
  // After the journal: a core goes to the run that holds its process.
  static const CoreDumpsCollector cores;
  static const std::vector<const Collector*> list{&journal,  &kernel_log,  &log_files, &environment_reports,
                                                  &configs,  &checkpoints, &cores};
  return list;
}

const std::vector<PostCollectionPass>& post_collection_passes() {
  static const std::vector<PostCollectionPass> passes{
      {"fault-symbols", symbolize_kernel_faults},
      {"crash-symbols", symbolize_crashes},
  };
  return passes;
}

std::vector<const Collector*> post_mortem_collectors() {
  std::vector<const Collector*> out;
  for (const auto* c : all_collectors()) {
    if (c->mode() != Mode::live) out.push_back(c);
  }
  return out;
}

}  // namespace ftdiag::collectors
