#include "evidence/document_json.h"

#include <map>
#include <set>

#include <fmt/format.h>

#include "evidence/document_fields.h"
#include "evidence/json_fields.h"

namespace ftdiag::evidence {

using nlohmann::json;

namespace {

// Version 1 had one flat list of runs and one source path. Each run names
// its host in its "started" record, so the runs are grouped by host; a v1
// document has no host-level sources, which then read as not collected.
json upgrade_from_v1(const json& v1) {
  json v2 = {{"schema_version", 2}, {"generator", v1.value("generator", "")}, {"hosts", json::array()}};
  v2["sources"] = v1.contains("source") ? json::array({v1.at("source")}) : json::array();
  std::map<std::string, std::size_t> host_index;
  for (const auto& run : v1.at("runs")) {
    const auto host = run.at("started").value("host", "");
    auto [it, added] = host_index.emplace(host, v2["hosts"].size());
    if (added) {
      const Missing not_in_v1{MissingReason::not_present, "an evidence document of schema version 1 has no kernel log"};
      v2["hosts"].push_back({{"name", host}, {"runs", json::array()}, {"kernel", write_json(Fact<bool>(not_in_v1))}});
    }
    v2["hosts"][it->second]["runs"].push_back(run);
  }
  return v2;
}

// Before version 3 a cgroup reading did not say whether its peak was reset
// for the job: it may be an earlier job's (a reused cgroup).
void say_peaks_not_reset(EvidenceDocument& document, int version) {
  const Missing why{MissingReason::not_present,
                    fmt::format("evidence schema version {} did not record whether the peak was reset for the job", version)};
  for (auto& host : document.hosts) {
    for (auto& run : host.runs) {
      for (auto* reading : {&run.memory.cgroup_first, &run.memory.cgroup_last}) {
        if (*reading && !(*reading)->peak_reset) (*reading)->peak_reset = why;
      }
    }
  }
}

// Before version 10 a log event did not say what its kind means: the
// meanings of the kinds that version knew, as rules/log-events.json then
// declared them (a frozen copy: new kinds are declared in the data only).
void say_what_old_kinds_mean(EvidenceDocument& document) {
  static const std::map<std::string, std::string, std::less<>> kVersion9Meanings{
      {"launcher-teardown", "teardown"},  {"native-backtrace", "detail"},   {"native-frame", "detail"},
      {"host-memory-usage", "pressure"},  {"scheduler-memory-limit-hit", "pressure"},
      {"earlyoom-low-memory", "pressure"}, {"scheduler-task-exited", "status"}};
  static const std::set<std::string, std::less<>> kKernelKinds{"oom-kill", "fault", "gpu-xid"};
  const auto upgrade = [&](std::vector<LogEvent>& events) {
    for (auto& event : events) {
      if (!event.means.empty() || kKernelKinds.count(event.kind)) continue;
      const auto known = kVersion9Meanings.find(event.kind);
      event.means = known == kVersion9Meanings.end() ? "failure" : known->second;
    }
  };
  for (auto& host : document.hosts) {
    for (auto& log : host.logs) upgrade(log.events);
    for (auto& run : host.runs) upgrade(run.console.events);
  }
}

}  // namespace

json document_to_json(const EvidenceDocument& document) { return write_json(document); }

Fact<EvidenceDocument> document_from_json(const json& j) {
  try {
    if (!j.is_object()) return Missing{MissingReason::unparseable, "not an evidence document: not a JSON object"};
    const int version = j.at("schema_version").get<int>();
    if (version < 1 || version > kSchemaVersion) {
      return Missing{MissingReason::unsupported, fmt::format("evidence schema_version {} (this ftdiag reads 1 to {})",
                                                             version, kSchemaVersion)};
    }
    EvidenceDocument document;
    read_json(version == 1 ? upgrade_from_v1(j) : j, document);
    if (version < 3) say_peaks_not_reset(document, version);
    if (version < 10) say_what_old_kinds_mean(document);
    document.schema_version = kSchemaVersion;
    return document;
  } catch (const std::exception& e) {
    return Missing{MissingReason::unparseable, fmt::format("not an evidence document: {}", e.what())};
  }
}

}  // namespace ftdiag::evidence
