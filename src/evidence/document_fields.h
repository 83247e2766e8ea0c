// The field tables (fields.h) of the evidence document: its JSON keys,
// declared once. docs/evidence.md documents them.
#pragma once

#include <nlohmann/json.hpp>

#include "evidence/document.h"
#include "evidence/environment_fields.h"
#include "evidence/record_fields.h"

namespace ftdiag::evidence {

template <>
struct Fields<ProcessEvidence> {
  using T = ProcessEvidence;
  static constexpr auto list = std::tuple{
      field("pid", &T::pid, required), field("ppid", &T::ppid),       field("nspid", &T::nspid),
      field("argv", &T::argv),         field("comm", &T::comm),       field("seen_by", &T::seen_by),
      field("first_seen", &T::first_seen), field("death", &T::death), field("peak_rss_bytes", &T::peak_rss),
      field("vm_hwm_bytes", &T::vm_hwm), field("last_sample", &T::last_sample),
      field("environment", &T::environment), field("gpu_peak_bytes", &T::gpu_peak),
      field("gpu_devices", &T::gpu_devices)};
};

template <>
struct Fields<ProcessSummary> {
  using T = ProcessSummary;
  static constexpr auto list = std::tuple{
      field("command", &T::command, required), field("count", &T::count, required),
      field("exit_nonzero", &T::exit_nonzero), field("killed_by_signal", &T::killed_by_signal),
      field("first_seen", &T::first_seen),     field("last_end", &T::last_end),
      field("longest_life_s", &T::longest_life_s), field("peak_rss_bytes", &T::peak_rss)};
};

template <>
struct Fields<MemoryWatermarks> {
  using T = MemoryWatermarks;
  static constexpr auto list = std::tuple{
      field("node_mem_total_bytes", &T::node_mem_total),
      field("node_min_available_bytes", &T::node_min_available),
      field("node_min_available_time", &T::node_min_available_time),
      field("job_rss_peak_bytes", &T::job_rss_peak),
      field("job_rss_peak_time", &T::job_rss_peak_time),
      field("cgroup_first", &T::cgroup_first),
      field("cgroup", &T::cgroup_last),
      field("cgroup_peak_bytes", &T::cgroup_peak),
      field("dev_shm_peak_used_bytes", &T::dev_shm_peak_used),
      field("dev_shm_total_bytes", &T::dev_shm_total)};
};

template <>
struct Fields<TimelinePoint> {
  using T = TimelinePoint;
  static constexpr auto list = std::tuple{
      field("time", &T::time, required),           field("node_available_bytes", &T::node_available),
      field("cgroup_usage_bytes", &T::cgroup_usage), field("job_rss_bytes", &T::job_rss),
      field("dev_shm_used_bytes", &T::dev_shm_used), field("process_count", &T::process_count)};
};

template <>
struct Fields<PhaseStretch> {
  using T = PhaseStretch;
  static constexpr auto list = std::tuple{
      field("phase", &T::phase, required), field("first_time", &T::first_time), field("last_time", &T::last_time),
      field("lines", &T::lines),           field("first_line", &T::first_line)};
};

template <>
struct Fields<ConsoleLine> {
  using T = ConsoleLine;
  static constexpr auto list = std::tuple{field("time", &T::time, required), field("stream", &T::stream),
                                          field("text", &T::text, required), field("word", &T::word)};
};

template <>
struct Fields<ConsoleEvidence> {
  using T = ConsoleEvidence;
  static constexpr auto list = std::tuple{field("line_count", &T::line_count), field("readable", &T::readable),
                                          field("phases", &T::phases), field("tail", &T::tail),
                                          field("events", &T::events), field("events_dropped", &T::events_dropped)};
};

template <>
struct Fields<RunEvidence> {
  using T = RunEvidence;
  static constexpr auto list = std::tuple{
      field("directory", &T::directory, required),
      field("started", &T::started, required),
      field("ended", &T::ended),
      field("job_status", &T::job_status),
      field("processes", &T::processes),
      field("process_summary", &T::process_summary),
      field("memory", &T::memory),
      field("timeline", &T::timeline),
      field("console", &T::console),
      field("notes", &T::notes),
      field("journal_problems", &T::journal_problems),
      field("kernel", &T::kernel),
      field("crashes", &T::crashes),
      field("probe_markers", &T::probe_markers),
      field("last_gasps", &T::last_gasps),
      field("python_stacks", &T::python_stacks),
      field("save_forecasts", &T::save_forecasts),
      field("heartbeats", &T::heartbeats),
      field("last_heartbeat", &T::last_heartbeat),
      field("last_record_time", &T::last_record_time),
      field("gpu_samples", &T::gpu_samples),
      field("signals", &T::signals),
      field("received_signals", &T::received_signals)};
  static void add_derived(const T& run, nlohmann::json& j) { j["complete"] = run.ended.has_value(); }
};

template <>
struct Fields<Provenance> {
  using T = Provenance;
  static constexpr auto list = std::tuple{field("collector", &T::collector), field("file", &T::file),
                                          field("line", &T::line), field("command", &T::command)};
};

template <>
struct Fields<LogEvent> {
  using T = LogEvent;
  static constexpr auto list = std::tuple{
      field("kind", &T::kind, required), field("time", &T::time),       field("from", &T::from),
      field("text", &T::text),           field("pid", &T::pid),         field("signal", &T::signal),
      field("exit_code", &T::exit_code), field("rank", &T::rank),       field("details", &T::details),
      field("means", &T::means)};
};

template <>
struct Fields<KernelLogEvidence> {
  using T = KernelLogEvidence;
  static constexpr auto list = std::tuple{field("from", &T::from), field("records", &T::records),
                                          field("boot_time", &T::boot_time)};
};

template <>
struct Fields<LogPhase> {
  using T = LogPhase;
  static constexpr auto list = std::tuple{
      field("phase", &T::phase, required),    field("first_line_number", &T::first_line_number),
      field("last_line_number", &T::last_line_number), field("lines", &T::lines),
      field("first_line", &T::first_line),    field("first_time", &T::first_time)};
};

template <>
struct Fields<LogLine> {
  using T = LogLine;
  static constexpr auto list = std::tuple{field("line_number", &T::line_number, required), field("text", &T::text, required),
                                          field("word", &T::word)};
};

template <>
struct Fields<LogFileEvidence> {
  using T = LogFileEvidence;
  static constexpr auto list = std::tuple{
      field("from", &T::from),               field("line_count", &T::line_count),
      field("bytes", &T::bytes),             field("complete", &T::complete),
      field("ends_mid_line", &T::ends_mid_line), field("nul_bytes", &T::nul_bytes),
      field("events", &T::events),           field("events_dropped", &T::events_dropped),
      field("phases", &T::phases),           field("tail", &T::tail),
      field("kernel_lines", &T::kernel_lines)};
};

template <>
struct Fields<ConfigEvidence> {
  using T = ConfigEvidence;
  static constexpr auto list = std::tuple{field("from", &T::from), field("kind", &T::kind, required),
                                          field("settings", &T::settings)};
};

template <>
struct Fields<CheckpointEvidence> {
  using T = CheckpointEvidence;
  static constexpr auto list = std::tuple{field("from", &T::from),   field("step", &T::step),
                                          field("files", &T::files), field("bytes", &T::bytes),
                                          field("modified", &T::modified), field("complete", &T::complete)};
};

template <>
struct Fields<StackFrame> {
  using T = StackFrame;
  static constexpr auto list = std::tuple{field("address", &T::address), field("object", &T::object),
                                          field("offset", &T::offset),   field("function", &T::function),
                                          field("file", &T::file),       field("line", &T::line),
                                          field("language", &T::language), field("inlined", &T::inlined)};
};

template <>
struct Fields<PythonThreadStack> {
  using T = PythonThreadStack;
  static constexpr auto list = std::tuple{field("thread_id", &T::thread_id), field("name", &T::name),
                                          field("current", &T::current),     field("frames", &T::frames),
                                          field("truncated", &T::truncated)};
};

template <>
struct Fields<MappedModule> {
  using T = MappedModule;
  static constexpr auto list = std::tuple{field("path", &T::path, required), field("start", &T::start),
                                          field("end", &T::end), field("file_offset", &T::file_offset)};
};

template <>
struct Fields<CrashEvidence> {
  using T = CrashEvidence;
  static constexpr auto list = std::tuple{
      field("from", &T::from),
      field("source", &T::source),
      field("time", &T::time),
      field("pid", &T::pid),
      field("tid", &T::tid),
      field("thread", &T::thread),
      field("signal", &T::signal),
      field("code", &T::code),
      field("fault_address", &T::fault_address),
      field("stack_pointer", &T::stack_pointer),
      field("stack_low", &T::stack_low),
      field("stack_high", &T::stack_high),
      field("fault_mapping", &T::fault_mapping),
      field("maps_recorded", &T::maps_recorded),
      field("frames", &T::frames),
      field("unwind", &T::unwind),
      field("symbolized", &T::symbolized),
      field("python", &T::python),
      field("extension_modules", &T::extension_modules),
      field("modules", &T::modules),
      field("environment", &T::environment),
      field("problems", &T::problems)};
};

template <>
struct Fields<CollectorReport> {
  using T = CollectorReport;
  static constexpr auto list = std::tuple{field("name", &T::name, required), field("section", &T::section),
                                          field("sources", &T::sources), field("outcome", &T::outcome)};
};

template <>
struct Fields<ReportedValue> {
  using T = ReportedValue;
  static constexpr auto list = std::tuple{field("key", &T::key, required), field("value", &T::value, required),
                                          field("format", &T::format), field("from", &T::from)};
};

template <>
struct Fields<HostEvidence> {
  using T = HostEvidence;
  static constexpr auto list = std::tuple{
      field("name", &T::name),               field("runs", &T::runs),
      field("kernel", &T::kernel),           field("environment", &T::environment),
      field("configs", &T::configs),         field("logs", &T::logs),
      field("checkpoints", &T::checkpoints), field("crashes", &T::crashes),
      field("gpu", &T::gpu),                 field("python", &T::python),
      field("system", &T::system),           field("reported", &T::reported)};
};

template <>
struct Fields<EvidenceDocument> {
  using T = EvidenceDocument;
  static constexpr auto list = std::tuple{field("schema_version", &T::schema_version, required),
                                          field("generator", &T::generator), field("sources", &T::sources),
                                          field("hosts", &T::hosts), field("collectors", &T::collectors),
                                          field("redaction", &T::redaction)};
};

}  // namespace ftdiag::evidence
