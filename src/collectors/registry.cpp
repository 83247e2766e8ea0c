#include "collectors/registry.h"

#include "collectors/journal_collector.h"

namespace ftdiag::collectors {

const std::vector<const Collector*>& all_collectors() {
  static const JournalCollector journal;
  static const std::vector<const Collector*> list{&journal};
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
