#include "collectors/registry.h"

#include "collectors/journal_collector.h"
#include "collectors/kernel_log_collector.h"

namespace ftdiag::collectors {

const std::vector<const Collector*>& all_collectors() {
  static const JournalCollector journal;
  // The kernel log's reader places its records by the runs' times: after
  // the journal.
  static const KernelLogCollector kernel_log;
  static const std::vector<const Collector*> list{&journal, &kernel_log};
  return list;
}

std::vector<const Collector*> post_mortem_collectors() {
  std::vector<const Collector*> out;
  for (const auto* c : all_collectors()) {
    if (c->mode() != Mode::live) out.push_back(c);
  }
  return out;
}

}  // namespace ftdiag::collectors
