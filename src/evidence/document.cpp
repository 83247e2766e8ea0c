#include "evidence/document.h"

#include <charconv>

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

std::optional<std::uint64_t> LogEvent::detail_count(const std::string& key) const {
  const auto it = details.find(key);
  if (it == details.end() || it->second.empty()) return std::nullopt;
  std::uint64_t value = 0;
  const auto* end = it->second.data() + it->second.size();
  const auto [stop, error] = std::from_chars(it->second.data(), end, value);
  if (error != std::errc() || stop != end) return std::nullopt;
  return value;
}

std::optional<double> LogEvent::detail_number(const std::string& key) const {
  const auto it = details.find(key);
  if (it == details.end() || it->second.empty()) return std::nullopt;
  double value = 0;
  const auto* end = it->second.data() + it->second.size();
  const auto [stop, error] = std::from_chars(it->second.data(), end, value);
  if (error != std::errc() || stop != end) return std::nullopt;
  return value;
}

}  // namespace ftdiag::evidence
