#include "evidence/document.h"

#include <fmt/format.h>

namespace ftdiag::evidence {

std::string RunRef::pointer() const { return fmt::format("/hosts/{}/runs/{}", host, run); }

std::size_t count_runs(const EvidenceDocument& document) {
  std::size_t n = 0;
  for (const auto& host : document.hosts) n += host.runs.size();
  return n;
}

HostEvidence& host_named(EvidenceDocument& document, const std::string& name) {
  for (auto& host : document.hosts) {
    if (host.name == name) return host;
  }
  document.hosts.push_back(HostEvidence{.name = name});
  return document.hosts.back();
}

}  // namespace ftdiag::evidence
