#include "evidence/records_json.h"

#include "evidence/fact_json.h"

namespace ftdiag::evidence {

using nlohmann::json;

json exit_status_to_json(const ExitStatus& status) {
  json j = {{"exit_code", value_to_json(status.exit_code)},
            {"signal", value_to_json(status.signal)},
            {"core_dumped", status.core_dumped},
            {"launcher_code", status.launcher_code()},
            {"description", status.describe()}};
  if (status.signal) j["signal_name"] = signal_name(*status.signal);
  return j;
}

ExitStatus exit_status_from_json(const json& j) {
  ExitStatus status;
  if (!j.at("exit_code").is_null()) status.exit_code = j.at("exit_code").get<int>();
  if (!j.at("signal").is_null()) status.signal = j.at("signal").get<int>();
  status.core_dumped = j.value("core_dumped", false);
  return status;
}

// nlohmann's ADL hooks, so Fact<ExitStatus> etc. serialize through fact_json.h.
void to_json(json& j, const ExitStatus& s) { j = exit_status_to_json(s); }
void from_json(const json& j, ExitStatus& s) { s = exit_status_from_json(j); }

void to_json(json& j, const FilesystemUsage& u) {
  j = {{"total_bytes", u.total}, {"used_bytes", u.used}, {"available_bytes", u.available}};
}
void from_json(const json& j, FilesystemUsage& u) {
  u = {j.at("total_bytes").get<Bytes>(), j.at("used_bytes").get<Bytes>(),
       j.at("available_bytes").get<Bytes>()};
}

void to_json(json& j, const CgroupMemory& c) {
  j = {{"version", c.version},
       {"path", c.path},
       {"usage_bytes", fact_to_json(c.usage)},
       {"limit_bytes", fact_to_json(c.limit)},
       {"peak_bytes", fact_to_json(c.peak)},
       {"oom_events", fact_to_json(c.oom_events)},
       {"oom_kill", fact_to_json(c.oom_kill)},
       {"max_events", fact_to_json(c.max_events)},
       {"swap_bytes", fact_to_json(c.swap)},
       {"anon_bytes", fact_to_json(c.anon)},
       {"file_bytes", fact_to_json(c.file)},
       {"shmem_bytes", fact_to_json(c.shmem)}};
}
void from_json(const json& j, CgroupMemory& c) {
  c.version = j.at("version").get<int>();
  c.path = j.at("path").get<std::string>();
  c.usage = fact_from_json<Bytes>(j, "usage_bytes");
  c.limit = fact_from_json<std::optional<Bytes>>(j, "limit_bytes");
  c.peak = fact_from_json<Bytes>(j, "peak_bytes");
  c.oom_events = fact_from_json<std::uint64_t>(j, "oom_events");
  c.oom_kill = fact_from_json<std::uint64_t>(j, "oom_kill");
  c.max_events = fact_from_json<std::uint64_t>(j, "max_events");
  c.swap = fact_from_json<Bytes>(j, "swap_bytes");
  c.anon = fact_from_json<Bytes>(j, "anon_bytes");
  c.file = fact_from_json<Bytes>(j, "file_bytes");
  c.shmem = fact_from_json<Bytes>(j, "shmem_bytes");
}

json process_memory_to_json(const ProcessMemory& m) {
  return {{"pid", m.pid},
          {"rss_bytes", fact_to_json(m.rss)},
          {"rss_anon_bytes", fact_to_json(m.rss_anon)},
          {"rss_file_bytes", fact_to_json(m.rss_file)},
          {"rss_shmem_bytes", fact_to_json(m.rss_shmem)},
          {"vm_hwm_bytes", fact_to_json(m.vm_hwm)},
          {"swap_bytes", fact_to_json(m.swap)}};
}

ProcessMemory process_memory_from_json(const json& j) {
  return {j.at("pid").get<int>(),
          fact_from_json<Bytes>(j, "rss_bytes"),
          fact_from_json<Bytes>(j, "rss_anon_bytes"),
          fact_from_json<Bytes>(j, "rss_file_bytes"),
          fact_from_json<Bytes>(j, "rss_shmem_bytes"),
          fact_from_json<Bytes>(j, "vm_hwm_bytes"),
          fact_from_json<Bytes>(j, "swap_bytes")};
}

void to_json(json& j, const ProcessMemory& m) { j = process_memory_to_json(m); }
void from_json(const json& j, ProcessMemory& m) { m = process_memory_from_json(j); }

namespace {

json mechanisms_to_json(const std::map<std::string, Fact<bool>>& mechanisms) {
  json j = json::object();
  for (const auto& [name, fact] : mechanisms) j[name] = fact_to_json(fact);
  return j;
}

std::map<std::string, Fact<bool>> mechanisms_from_json(const json& j) {
  std::map<std::string, Fact<bool>> mechanisms;
  for (const auto& [name, value] : j.items()) mechanisms.emplace(name, fact_from_json<bool>(j, name.c_str()));
  return mechanisms;
}

json node_to_json(const NodeMemory& n) {
  return {{"mem_total_bytes", fact_to_json(n.mem_total)},
          {"mem_available_bytes", fact_to_json(n.mem_available)},
          {"swap_total_bytes", fact_to_json(n.swap_total)},
          {"swap_free_bytes", fact_to_json(n.swap_free)},
          {"shmem_bytes", fact_to_json(n.shmem)}};
}

NodeMemory node_from_json(const json& j) {
  return {fact_from_json<Bytes>(j, "mem_total_bytes"), fact_from_json<Bytes>(j, "mem_available_bytes"),
          fact_from_json<Bytes>(j, "swap_total_bytes"), fact_from_json<Bytes>(j, "swap_free_bytes"),
          fact_from_json<Bytes>(j, "shmem_bytes")};
}

struct ToJson {
  json operator()(const RunStarted& r) const {
    return {{"type", "run"},
            {"time", r.time},
            {"ftdiag_version", r.ftdiag_version},
            {"host", r.host},
            {"rank", value_to_json(r.rank)},
            {"argv", r.argv},
            {"cwd", r.cwd},
            {"supervisor_pid", r.supervisor_pid},
            {"job_pid", r.job_pid},
            {"sample_interval_s", r.sample_interval_s},
            {"pseudo_terminal", r.pseudo_terminal},
            {"mechanisms", mechanisms_to_json(r.mechanisms)}};
  }
  json operator()(const ProcessSeen& p) const {
    return {{"type", "process"}, {"time", p.time},   {"pid", p.pid},
            {"ppid", p.ppid},    {"nspid", p.nspid}, {"argv", p.argv},
            {"comm", p.comm},    {"start_ticks", value_to_json(p.start_ticks)},
            {"seen_by", p.seen_by}};
  }
  json operator()(const ProcessDied& d) const {
    return {{"type", "death"},
            {"time", d.time},
            {"pid", d.pid},
            {"status", fact_to_json(d.status)},
            {"witnesses", d.witnesses}};
  }
  json operator()(const MemorySample& s) const {
    json processes = json::array();
    for (const auto& p : s.processes) processes.push_back(process_memory_to_json(p));
    return {{"type", "sample"},
            {"time", s.time},
            {"node", node_to_json(s.node)},
            {"cgroup", fact_to_json(s.cgroup)},
            {"dev_shm", fact_to_json(s.dev_shm)},
            {"processes", std::move(processes)}};
  }
  json operator()(const SupervisorNote& n) const {
    return {{"type", "note"}, {"time", n.time}, {"what", n.what}};
  }
  json operator()(const RunEnded& e) const {
    return {{"type", "end"}, {"time", e.time}, {"job_status", exit_status_to_json(e.job_status)}};
  }
};

template <class T>
std::optional<T> optional_from(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return it->get<T>();
}

JournalRecord parse_record(const json& j) {
  const auto type = j.at("type").get<std::string>();
  const double time = j.at("time").get<double>();
  if (type == "run") {
    RunStarted r;
    r.time = time;
    r.ftdiag_version = j.value("ftdiag_version", "");
    r.host = j.at("host").get<std::string>();
    r.rank = optional_from<int>(j, "rank");
    r.argv = j.at("argv").get<std::vector<std::string>>();
    r.cwd = j.value("cwd", "");
    r.supervisor_pid = j.value("supervisor_pid", 0);
    r.job_pid = j.value("job_pid", 0);
    r.sample_interval_s = j.value("sample_interval_s", 0.5);
    r.pseudo_terminal = j.value("pseudo_terminal", false);
    if (j.contains("mechanisms")) r.mechanisms = mechanisms_from_json(j.at("mechanisms"));
    return r;
  }
  if (type == "process") {
    return ProcessSeen{time,
                       j.at("pid").get<int>(),
                       j.value("ppid", 0),
                       j.value("nspid", std::vector<int>{}),
                       j.value("argv", std::vector<std::string>{}),
                       j.value("comm", ""),
                       optional_from<std::uint64_t>(j, "start_ticks"),
                       j.value("seen_by", "")};
  }
  if (type == "death") {
    return ProcessDied{time, j.at("pid").get<int>(), fact_from_json<ExitStatus>(j, "status"),
                       j.value("witnesses", std::vector<std::string>{})};
  }
  if (type == "sample") {
    MemorySample s;
    s.time = time;
    s.node = node_from_json(j.at("node"));
    s.cgroup = fact_from_json<CgroupMemory>(j, "cgroup");
    s.dev_shm = fact_from_json<FilesystemUsage>(j, "dev_shm");
    for (const auto& p : j.at("processes")) s.processes.push_back(process_memory_from_json(p));
    return s;
  }
  if (type == "note") return SupervisorNote{time, j.at("what").get<std::string>()};
  if (type == "end") return RunEnded{time, exit_status_from_json(j.at("job_status"))};
  throw std::invalid_argument("unknown record type \"" + type + "\"");
}

}  // namespace

json record_to_json(const JournalRecord& record) { return std::visit(ToJson{}, record); }

Fact<JournalRecord> record_from_json(const json& j) {
  try {
    return parse_record(j);
  } catch (const std::exception& e) {
    return Missing{MissingReason::unparseable, e.what()};
  }
}

}  // namespace ftdiag::evidence
