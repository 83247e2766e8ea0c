// The field tables (fields.h) of the journal records and the memory
// readings: their JSON keys, declared once. docs/evidence.md documents them.
#pragma once

#include "evidence/environment_fields.h"
#include "evidence/fields.h"
#include "evidence/records.h"

namespace ftdiag::evidence {

template <>
struct Fields<ProcessMemory> {
  using T = ProcessMemory;
  static constexpr auto list = std::tuple{
      field("pid", &T::pid, required),          field("rss_bytes", &T::rss),
      field("rss_anon_bytes", &T::rss_anon),    field("rss_file_bytes", &T::rss_file),
      field("rss_shmem_bytes", &T::rss_shmem),  field("vm_hwm_bytes", &T::vm_hwm),
      field("swap_bytes", &T::swap)};
};

template <>
struct Fields<NodeMemory> {
  using T = NodeMemory;
  static constexpr auto list = std::tuple{
      field("mem_total_bytes", &T::mem_total),   field("mem_available_bytes", &T::mem_available),
      field("swap_total_bytes", &T::swap_total), field("swap_free_bytes", &T::swap_free),
      field("shmem_bytes", &T::shmem)};
};

template <>
struct Fields<CgroupMemory> {
  using T = CgroupMemory;
  static constexpr auto list = std::tuple{
      field("version", &T::version, required), field("path", &T::path, required),
      field("usage_bytes", &T::usage),          field("limit_bytes", &T::limit),
      field("peak_bytes", &T::peak),            field("oom_events", &T::oom_events),
      field("oom_kill", &T::oom_kill),          field("max_events", &T::max_events),
      field("swap_bytes", &T::swap),            field("anon_bytes", &T::anon),
      field("file_bytes", &T::file),            field("shmem_bytes", &T::shmem),
      field("under_oom", &T::under_oom),        field("peak_reset", &T::peak_reset),
      field("oom_group_kill", &T::oom_group_kill), field("oom_group", &T::oom_group),
      field("shared_with", &T::shared_with)};
};

template <>
struct Fields<FilesystemUsage> {
  using T = FilesystemUsage;
  static constexpr auto list = std::tuple{field("total_bytes", &T::total, required),
                                          field("used_bytes", &T::used, required),
                                          field("available_bytes", &T::available, required)};
};

template <>
struct Fields<RunStarted> {
  using T = RunStarted;
  static constexpr auto list = std::tuple{
      field("time", &T::time, required),
      field("journal_format", &T::journal_format),
      field("ftdiag_version", &T::ftdiag_version),
      field("host", &T::host, required),
      field("rank", &T::rank),
      field("argv", &T::argv, required),
      field("cwd", &T::cwd),
      field("supervisor_pid", &T::supervisor_pid),
      field("job_pid", &T::job_pid),
      field("sample_interval_s", &T::sample_interval_s),
      field("pseudo_terminal", &T::pseudo_terminal),
      field("mechanisms", &T::mechanisms),
      field("boot_time", &T::boot_time),
      field("oom_daemons", &T::oom_daemons),
      field("scheduler_job", &T::scheduler_job),
      field("redaction", &T::redaction),
      field("node", &T::node),
      field("placement", &T::placement),
      field("heartbeat_interval_s", &T::heartbeat_interval_s)};
};

template <>
struct Fields<ProcessSeen> {
  using T = ProcessSeen;
  static constexpr auto list = std::tuple{
      field("time", &T::time, required), field("pid", &T::pid, required), field("ppid", &T::ppid),
      field("nspid", &T::nspid),         field("argv", &T::argv),         field("comm", &T::comm),
      field("start_ticks", &T::start_ticks), field("seen_by", &T::seen_by),
      field("environment", &T::environment)};
};

template <>
struct Fields<ProcessDied> {
  using T = ProcessDied;
  static constexpr auto list = std::tuple{field("time", &T::time, required), field("pid", &T::pid, required),
                                          field("status", &T::status), field("witnesses", &T::witnesses)};
};

template <>
struct Fields<MemorySample> {
  using T = MemorySample;
  static constexpr auto list = std::tuple{
      field("time", &T::time, required), field("node", &T::node, required), field("cgroup", &T::cgroup),
      field("dev_shm", &T::dev_shm),     field("processes", &T::processes, required)};
};

template <>
struct Fields<WriteFailure> {
  using T = WriteFailure;
  static constexpr auto list = std::tuple{
      field("since", &T::since, required), field("file", &T::file),   field("operation", &T::operation),
      field("errno", &T::error_number),    field("error", &T::error)};
};

template <>
struct Fields<SupervisorNote> {
  using T = SupervisorNote;
  static constexpr auto list = std::tuple{field("time", &T::time, required), field("what", &T::what, required),
                                          field("write_failure", &T::write_failure)};
};

template <>
struct Fields<RunEnded> {
  using T = RunEnded;
  static constexpr auto list = std::tuple{field("time", &T::time, required),
                                          field("job_status", &T::job_status, required)};
};

template <>
struct Fields<KernelLogged> {
  using T = KernelLogged;
  static constexpr auto list = std::tuple{field("time", &T::time, required), field("record", &T::record, required)};
};

template <>
struct Fields<SignalSent> {
  using T = SignalSent;
  static constexpr auto list = std::tuple{
      field("time", &T::time, required),     field("signal", &T::signal, required),
      field("target_pid", &T::target_pid, required), field("target_comm", &T::target_comm),
      field("sender_pid", &T::sender_pid),   field("sender_comm", &T::sender_comm),
      field("code", &T::code),               field("result", &T::result)};
};

template <>
struct Fields<SignalReceived> {
  using T = SignalReceived;
  static constexpr auto list = std::tuple{
      field("time", &T::time, required),   field("signal", &T::signal, required),
      field("sender_pid", &T::sender_pid), field("sender_uid", &T::sender_uid),
      field("code", &T::code),             field("sender_comm", &T::sender_comm),
      field("sender_command", &T::sender_command), field("forwarded", &T::forwarded)};
};

template <>
struct Fields<ProbeMarker> {
  using T = ProbeMarker;
  static constexpr auto list = std::tuple{
      field("time", &T::time, required), field("pid", &T::pid, required), field("rank", &T::rank),
      field("marker", &T::marker, required), field("phase", &T::phase), field("what", &T::what),
      field("error", &T::error)};
};

template <>
struct Fields<LastGasp> {
  using T = LastGasp;
  static constexpr auto list = std::tuple{
      field("time", &T::time, required), field("reason", &T::reason), field("pressure", &T::pressure),
      field("largest", &T::largest),     field("smaps_rollup", &T::smaps_rollup), field("asked", &T::asked)};
};

template <>
struct Fields<PythonStacksTaken> {
  using T = PythonStacksTaken;
  static constexpr auto list = std::tuple{field("time", &T::time, required), field("pid", &T::pid, required),
                                          field("text", &T::text)};
};

template <>
struct Fields<SaveForecast> {
  using T = SaveForecast;
  static constexpr auto list = std::tuple{
      field("time", &T::time, required),         field("held_bytes", &T::held_bytes),
      field("predicted_peak_bytes", &T::predicted_peak_bytes, required), field("capacity_bytes", &T::capacity_bytes),
      field("capacity_source", &T::capacity_source), field("setup", &T::setup), field("formula", &T::formula),
      field("first_save", &T::first_save),       field("fits", &T::fits, required), field("warning", &T::warning)};
};

template <>
struct Fields<Heartbeat> {
  using T = Heartbeat;
  static constexpr auto list = std::tuple{field("time", &T::time, required), field("sequence", &T::sequence)};
};

// The "type" each record carries on its journal line.
template <class Record>
constexpr std::string_view record_type();
template <> constexpr std::string_view record_type<RunStarted>() { return "run"; }
template <> constexpr std::string_view record_type<ProcessSeen>() { return "process"; }
template <> constexpr std::string_view record_type<ProcessDied>() { return "death"; }
template <> constexpr std::string_view record_type<MemorySample>() { return "sample"; }
template <> constexpr std::string_view record_type<SupervisorNote>() { return "note"; }
template <> constexpr std::string_view record_type<RunEnded>() { return "end"; }
template <> constexpr std::string_view record_type<KernelLogged>() { return "kernel"; }
template <> constexpr std::string_view record_type<SignalSent>() { return "signal"; }
template <> constexpr std::string_view record_type<SignalReceived>() { return "received"; }
template <> constexpr std::string_view record_type<ProbeMarker>() { return "probe"; }
template <> constexpr std::string_view record_type<LastGasp>() { return "gasp"; }
template <> constexpr std::string_view record_type<PythonStacksTaken>() { return "stacks"; }
template <> constexpr std::string_view record_type<model::GpuMemorySample>() { return "gpu"; }
template <> constexpr std::string_view record_type<SaveForecast>() { return "forecast"; }
template <> constexpr std::string_view record_type<Heartbeat>() { return "heartbeat"; }

}  // namespace ftdiag::evidence
