// The host that sources found under a PATH belong to when nothing in them
// names one: the host whose runs are analyzed when there is exactly one
// (a folder of one node's runs beside its configs), else an unnamed host.
#pragma once

#include "evidence/document.h"

namespace ftdiag::collectors {

inline evidence::HostEvidence& host_of_path_sources(evidence::EvidenceDocument& document) {
  const evidence::HostEvidence* only = nullptr;
  int with_runs = 0;
  for (const auto& host : document.hosts) {
    if (!host.runs.empty()) {
      ++with_runs;
      only = &host;
    }
  }
  return evidence::host_named(document, with_runs == 1 ? only->name : std::string());
}

}  // namespace ftdiag::collectors
