#include "evidence/document_json.h"

#include <fmt/format.h>

#include "evidence/fact_json.h"
#include "evidence/records_json.h"

namespace ftdiag::evidence {

using nlohmann::json;

namespace {

// A record's JSON without its "type" tag, for embedding in the document.
json untagged(const JournalRecord& record) {
  json j = record_to_json(record);
  j.erase("type");
  return j;
}

template <class Record>
Record retagged(json j, const char* type) {
  j["type"] = type;
  auto record = record_from_json(j);
  if (!record) throw std::invalid_argument(record.missing().detail);
  return std::get<Record>(std::move(record).value());
}

json process_to_json(const ProcessEvidence& p) {
  return {{"pid", p.pid},
          {"ppid", p.ppid},
          {"nspid", p.nspid},
          {"argv", p.argv},
          {"comm", p.comm},
          {"seen_by", p.seen_by},
          {"first_seen", p.first_seen},
          {"death", p.death ? untagged(*p.death) : json(nullptr)},
          {"peak_rss_bytes", fact_to_json(p.peak_rss)},
          {"vm_hwm_bytes", fact_to_json(p.vm_hwm)},
          {"last_sample", fact_to_json(p.last_sample)}};
}

ProcessEvidence process_from_json(const json& j) {
  ProcessEvidence p;
  p.pid = j.at("pid").get<int>();
  p.ppid = j.at("ppid").get<int>();
  p.nspid = j.at("nspid").get<std::vector<int>>();
  p.argv = j.at("argv").get<std::vector<std::string>>();
  p.comm = j.at("comm").get<std::string>();
  p.seen_by = j.at("seen_by").get<std::string>();
  p.first_seen = j.at("first_seen").get<double>();
  if (!j.at("death").is_null()) p.death = retagged<ProcessDied>(j.at("death"), "death");
  p.peak_rss = fact_from_json<Bytes>(j, "peak_rss_bytes");
  p.vm_hwm = fact_from_json<Bytes>(j, "vm_hwm_bytes");
  p.last_sample = fact_from_json<ProcessMemory>(j, "last_sample");
  return p;
}

json optional_time(const std::optional<double>& t) { return t ? json(*t) : json(nullptr); }
std::optional<double> optional_time_from(const json& j) {
  return j.is_null() ? std::nullopt : std::optional<double>(j.get<double>());
}

json memory_to_json(const MemoryWatermarks& m) {
  return {{"node_mem_total_bytes", fact_to_json(m.node_mem_total)},
          {"node_min_available_bytes", fact_to_json(m.node_min_available)},
          {"node_min_available_time", optional_time(m.node_min_available_time)},
          {"job_rss_peak_bytes", fact_to_json(m.job_rss_peak)},
          {"job_rss_peak_time", optional_time(m.job_rss_peak_time)},
          {"cgroup_first", fact_to_json(m.cgroup_first)},
          {"cgroup", fact_to_json(m.cgroup_last)},
          {"cgroup_peak_bytes", fact_to_json(m.cgroup_peak)},
          {"dev_shm_peak_used_bytes", fact_to_json(m.dev_shm_peak_used)},
          {"dev_shm_total_bytes", fact_to_json(m.dev_shm_total)}};
}

MemoryWatermarks memory_from_json(const json& j) {
  MemoryWatermarks m;
  m.node_mem_total = fact_from_json<Bytes>(j, "node_mem_total_bytes");
  m.node_min_available = fact_from_json<Bytes>(j, "node_min_available_bytes");
  m.node_min_available_time = optional_time_from(j.at("node_min_available_time"));
  m.job_rss_peak = fact_from_json<Bytes>(j, "job_rss_peak_bytes");
  m.job_rss_peak_time = optional_time_from(j.at("job_rss_peak_time"));
  m.cgroup_first = fact_from_json<CgroupMemory>(j, "cgroup_first");
  m.cgroup_last = fact_from_json<CgroupMemory>(j, "cgroup");
  m.cgroup_peak = fact_from_json<Bytes>(j, "cgroup_peak_bytes");
  m.dev_shm_peak_used = fact_from_json<Bytes>(j, "dev_shm_peak_used_bytes");
  m.dev_shm_total = fact_from_json<Bytes>(j, "dev_shm_total_bytes");
  return m;
}

json timeline_to_json(const std::vector<TimelinePoint>& points) {
  json array = json::array();
  for (const auto& p : points) {
    array.push_back({{"time", p.time},
                     {"node_available_bytes", fact_to_json(p.node_available)},
                     {"cgroup_usage_bytes", fact_to_json(p.cgroup_usage)},
                     {"job_rss_bytes", fact_to_json(p.job_rss)},
                     {"dev_shm_used_bytes", fact_to_json(p.dev_shm_used)},
                     {"process_count", p.process_count}});
  }
  return array;
}

TimelinePoint timeline_point_from_json(const json& j) {
  return {j.at("time").get<double>(), fact_from_json<Bytes>(j, "node_available_bytes"),
          fact_from_json<Bytes>(j, "cgroup_usage_bytes"), fact_from_json<Bytes>(j, "job_rss_bytes"),
          fact_from_json<Bytes>(j, "dev_shm_used_bytes"), j.at("process_count").get<std::uint64_t>()};
}

json console_to_json(const ConsoleEvidence& c) {
  json tail = json::array();
  for (const auto& line : c.tail) {
    tail.push_back({{"time", line.time}, {"stream", std::string(1, line.stream)}, {"text", line.text}});
  }
  json phases = json::array();
  for (const auto& p : c.phases) {
    phases.push_back({{"phase", p.phase}, {"first_time", p.first_time}, {"last_time", p.last_time},
                      {"lines", p.lines}, {"first_line", p.first_line}});
  }
  return {{"line_count", c.line_count}, {"readable", fact_to_json(c.readable)}, {"phases", std::move(phases)},
          {"tail", std::move(tail)}};
}

ConsoleEvidence console_from_json(const json& j) {
  ConsoleEvidence c;
  c.line_count = j.at("line_count").get<std::uint64_t>();
  c.readable = fact_from_json<bool>(j, "readable");
  for (const auto& p : j.at("phases")) {
    c.phases.push_back({p.at("phase").get<std::string>(), p.at("first_time").get<double>(),
                        p.at("last_time").get<double>(), p.at("lines").get<std::uint64_t>(),
                        p.at("first_line").get<std::string>()});
  }
  for (const auto& line : j.at("tail")) {
    auto stream = line.at("stream").get<std::string>();
    c.tail.push_back({line.at("time").get<double>(), stream.empty() ? 'o' : stream[0],
                      line.at("text").get<std::string>()});
  }
  return c;
}

json run_to_json(const RunEvidence& r) {
  json processes = json::array();
  for (const auto& p : r.processes) processes.push_back(process_to_json(p));
  json notes = json::array();
  for (const auto& n : r.notes) notes.push_back({{"time", n.time}, {"what", n.what}});
  return {{"directory", r.directory},
          {"started", untagged(r.started)},
          {"ended", r.ended ? untagged(*r.ended) : json(nullptr)},
          {"complete", r.ended.has_value()},
          {"job_status", fact_to_json(r.job_status)},
          {"processes", std::move(processes)},
          {"memory", memory_to_json(r.memory)},
          {"timeline", timeline_to_json(r.timeline)},
          {"console", console_to_json(r.console)},
          {"notes", std::move(notes)},
          {"journal_problems", r.journal_problems}};
}

RunEvidence run_from_json(const json& j) {
  RunEvidence r;
  r.directory = j.at("directory").get<std::string>();
  r.started = retagged<RunStarted>(j.at("started"), "run");
  if (!j.at("ended").is_null()) r.ended = retagged<RunEnded>(j.at("ended"), "end");
  r.job_status = fact_from_json<ExitStatus>(j, "job_status");
  for (const auto& p : j.at("processes")) r.processes.push_back(process_from_json(p));
  r.memory = memory_from_json(j.at("memory"));
  for (const auto& p : j.at("timeline")) r.timeline.push_back(timeline_point_from_json(p));
  r.console = console_from_json(j.at("console"));
  for (const auto& n : j.at("notes")) r.notes.push_back({n.at("time").get<double>(), n.at("what").get<std::string>()});
  r.journal_problems = j.at("journal_problems").get<std::vector<std::string>>();
  return r;
}

}  // namespace

json document_to_json(const EvidenceDocument& document) {
  json runs = json::array();
  for (const auto& run : document.runs) runs.push_back(run_to_json(run));
  return {{"schema_version", document.schema_version},
          {"generator", document.generator},
          {"source", document.source},
          {"runs", std::move(runs)}};
}

Fact<EvidenceDocument> document_from_json(const json& j) {
  try {
    EvidenceDocument document;
    document.schema_version = j.at("schema_version").get<int>();
    if (document.schema_version != kSchemaVersion) {
      return Missing{MissingReason::unsupported,
                     fmt::format("evidence schema_version {} (this ftdiag reads {})",
                                 document.schema_version, kSchemaVersion)};
    }
    document.generator = j.at("generator").get<std::string>();
    document.source = j.at("source").get<std::string>();
    for (const auto& run : j.at("runs")) document.runs.push_back(run_from_json(run));
    return document;
  } catch (const std::exception& e) {
    return Missing{MissingReason::unparseable, fmt::format("not an evidence document: {}", e.what())};
  }
}

}  // namespace ftdiag::evidence
