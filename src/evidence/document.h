// The evidence document: everything gathered about one job, the contract
// between collectors and rules (docs/evidence.md). It reads back what it
// writes (document_json.h), so saved evidence can be judged again later.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/fact.h"
#include "evidence/console_lines.h"
#include "evidence/records.h"
#include "model/environment.h"

namespace ftdiag::evidence {

// Changes with every change of the JSON form. Readers accept every older
// version (document_json.cpp upgrades them; what an old version lacks reads
// as missing, with the reason). History:
//   1  runs only (one ftdiag run journal per run)
//   2  a job over hosts: each host has runs and host-level sources (kernel
//      records, environment, configs, log files, checkpoints, crash records);
//      processes that lived briefly and ended normally are summarised per
//      command; the cgroup reading gains under_oom; console phases.
//   3  cgroup readings gain peak_reset (the kernel's peak is the job's own);
//      run notes may carry a write_failure (the record is incomplete).
//   4  a run carries the kernel log read live over its time (kernel), the
//      signals sent to its processes with their senders (signals) and those
//      ftdiag received (received_signals); the run record has boot_time.
//   5  a run carries what the probes inside the job wrote: crash records,
//      Python fault dumps, phase markers, last gasps and the stacks taken.
//   6  a host carries its GPUs (gpu), the Python installation (python) and
//      its settings (system), and a run the GPU memory it sampled
//      (gpu_samples).
//   7  a log file carries its size, whether it ends mid-line, NUL bytes,
//      the phases it marks and its last lines by line number, and how many
//      kernel lines it held; a host carries the values environment
//      reports stated (reported).
//   8  cgroup readings say which process outside the job shares the cgroup
//      (shared_with): its figures are then not the job's alone.
//   9  the document says whether its values passed the redaction step
//      (redaction).
//   10 a log event says what its kind means (means: failure, teardown,
//      detail, pressure, status), as rules/log-events.json declares it.
inline constexpr int kSchemaVersion = 13;

// One process of the job tree, kept whole: the job itself, every process
// that died by a signal or failed, every one still running at the end, and
// every long-lived one (ranks, workers) — see ProcessSummary for the rest.
struct ProcessEvidence {
  int pid = 0;
  int ppid = 0;
  std::vector<int> nspid;
  std::vector<std::string> argv;
  std::string comm;
  std::string seen_by;
  std::map<std::string, std::string> environment;  // role variables only (RANK, LOCAL_RANK, ...)
  double first_seen = 0;
  std::optional<ProcessDied> death;      // absent: still running when the record ends
  // Missing when no sample caught the process alive (it lived less than a tick).
  Fact<Bytes> peak_rss = Missing{MissingReason::not_present, "no memory sample of this process"};  // highest sampled RSS
  Fact<Bytes> vm_hwm = Missing{MissingReason::not_present, "no memory sample of this process"};    // the kernel's high-water mark, last seen
  Fact<ProcessMemory> last_sample = Missing{MissingReason::not_present, "no memory sample of this process"};
  // GPU memory it used at most, and on which GPUs (NVML's per-process view).
  std::optional<Bytes> gpu_peak;
  std::vector<int> gpu_devices;

  bool operator==(const ProcessEvidence&) const = default;
};

// Extremes over the whole run, each with the time it was reached.
struct MemoryWatermarks {
  Fact<Bytes> node_mem_total = Missing{};
  Fact<Bytes> node_min_available = Missing{};
  std::optional<double> node_min_available_time;
  Fact<Bytes> job_rss_peak = Missing{MissingReason::not_present, "no live process with a memory reading"};  // sum over the tree's processes, per sample
  std::optional<double> job_rss_peak_time;
  Fact<CgroupMemory> cgroup_first = Missing{};  // the first reading: counters before the job ran
  Fact<CgroupMemory> cgroup_last = Missing{};   // the last reading (the cgroup may vanish)
  Fact<Bytes> cgroup_peak = Missing{};         // kernel's peak, or the highest sampled usage
  Fact<Bytes> dev_shm_peak_used = Missing{};
  Fact<Bytes> dev_shm_total = Missing{};

  bool operator==(const MemoryWatermarks&) const = default;
};

struct TimelinePoint {
  double time = 0;
  Fact<Bytes> node_available = Missing{};
  Fact<Bytes> cgroup_usage = Missing{};
  Fact<Bytes> job_rss = Missing{MissingReason::not_present, "no live process with a memory reading"};
  Fact<Bytes> dev_shm_used = Missing{};
  std::uint64_t process_count = 0;

  bool operator==(const TimelinePoint&) const = default;
};

// A stretch of consecutive console lines that mark the same training phase
// (rules/phases.json): "checkpoint-save" from the first "Saving model
// checkpoint" line until a line of another phase.
struct PhaseStretch {
  std::string phase;
  double first_time = 0;
  double last_time = 0;
  std::uint64_t lines = 0;
  std::string first_line;

  bool operator==(const PhaseStretch&) const = default;
};

// Where a piece of evidence came from: a file and line, a journal, or the
// command that produced it.
struct Provenance {
  std::string collector;              // the collector that read it (collectors/registry.cpp)
  std::string file;                   // path as given, or empty
  std::optional<std::uint64_t> line;  // 1-based
  std::string command;                // e.g. "journalctl -k -o short-iso", or empty

  bool operator==(const Provenance&) const = default;
};

// Something a source recorded as happening: a kernel OOM kill, a launcher's
// "exits with return code = -9", a Traceback. `time` is absent when the
// source did not say (a plain log line): such an event is ordered by its file
// and line, shown as "time unknown, line N".
struct LogEvent {
  std::string kind;  // docs/evidence.md lists the kinds, e.g. "oom-kill", "process-exit"
  std::optional<double> time;
  Provenance from;
  std::string text;         // the line as written, cut at kMaxEventText
  std::optional<int> pid;   // as the source names it (maybe in another pid namespace)
  std::optional<int> signal;
  std::optional<int> exit_code;
  std::optional<int> rank;
  // Source-specific values, e.g. {"constraint": "CONSTRAINT_MEMCG",
  // "anon_rss_bytes": "123456"}; facts read them by name.
  std::map<std::string, std::string> details;
  // For a line event, what its kind means for a diagnosis (failure, teardown,
  // detail, pressure, status: the kind's declaration in rules/log-events.json);
  // empty for the kernel's records.
  std::string means;

  // A detail's value, empty when the source did not give it.
  std::string detail(const std::string& key) const {
    auto it = details.find(key);
    return it == details.end() ? std::string() : it->second;
  }

  // A detail read as a count (a pid, a size in bytes, microseconds), or as a
  // number: nullopt when absent, or when its text is not wholly one (a
  // document read back from JSON may hold anything), never a silent 0.
  std::optional<std::uint64_t> detail_count(const std::string& key) const;
  std::optional<double> detail_number(const std::string& key) const;

  bool operator==(const LogEvent&) const = default;
};

inline constexpr std::size_t kMaxEventText = 4096;

// The kernel's log over the job's time: a host's, not a run's.
struct KernelLogEvidence {
  Provenance from;  // where it was read: /dev/kmsg, a dmesg file, journalctl
  std::vector<LogEvent> records;
  std::optional<double> boot_time;  // wall clock of boot, to place monotonic stamps

  bool operator==(const KernelLogEvidence&) const = default;
};

struct ConsoleEvidence {
  std::uint64_t line_count = 0;
  std::vector<PhaseStretch> phases;  // oldest first; at most the last 1000 stretches
  std::vector<ConsoleLine> tail;  // the last lines, oldest first
  Fact<bool> readable = true;     // Missing when console.log could not be read
  // Lines a launcher, scheduler or OOM daemon printed about a death
  // (rules/log-events.json): the first 500 and the last 500.
  std::vector<LogEvent> events;
  std::uint64_t events_dropped = 0;

  bool operator==(const ConsoleEvidence&) const = default;
};

// Processes that lived briefly and exited with code 0 (and, past the caps of
// run_builder.h, any others), counted per command
// instead of kept one by one, so a job that starts 200k short helpers (a
// shell loop, compile workers) costs the same memory as one that starts ten.
struct ProcessSummary {
  std::string command;  // comm, or argv[0] when comm is unknown
  std::uint64_t count = 0;
  std::uint64_t exit_nonzero = 0;      // past the cap on processes kept whole
  std::uint64_t killed_by_signal = 0;  // idem (or ended unseen)
  double first_seen = 0;
  double last_end = 0;
  double longest_life_s = 0;
  Fact<Bytes> peak_rss = Missing{MissingReason::not_present, "no memory sample of these processes"};

  bool operator==(const ProcessSummary&) const = default;
};

// One frame of a native or Python stack, in stages: the raw address, then
// the object and offset, then the symbol (whatever the collector got to).
struct StackFrame {
  std::optional<std::uint64_t> address;
  std::string object;  // path of the mapped file, or empty
  std::optional<std::uint64_t> offset;  // file offset into `object` of the place looked up
  std::string function;
  std::string file;
  std::optional<std::uint64_t> line;
  std::string language;  // "native" or "python"
  bool inlined = false;  // a call inlined into the next frame (same address)

  bool operator==(const StackFrame&) const = default;
};

// One thread's Python frames, as faulthandler dumped them.
struct PythonThreadStack {
  std::string thread_id;            // "0x00007ff668a07b80"
  std::string name;                 // Python 3.14+; empty before
  bool current = false;             // the thread that crashed (or was asked)
  std::vector<StackFrame> frames;   // innermost first
  bool truncated = false;           // faulthandler stops at 100 frames

  bool operator==(const PythonThreadStack&) const = default;
};

// An executable mapping of a file in a crashed process: where a frame's
// address lands, and which libraries the process had loaded.
struct MappedModule {
  std::string path;
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::uint64_t file_offset = 0;

  bool operator==(const MappedModule&) const = default;
};

// A crash recorded in or about one process: signal, fault address, stacks.
struct CrashEvidence {
  Provenance from;
  std::string source;  // "crash-probe" (the in-process handler), "faulthandler", "core"
  std::optional<double> time;
  std::optional<int> pid;
  std::optional<int> tid;
  std::string thread;  // the crashing thread's name
  std::optional<int> signal;
  std::optional<int> code;  // si_code
  std::optional<std::uint64_t> fault_address;
  std::optional<std::uint64_t> stack_pointer;
  std::optional<std::uint64_t> stack_low;   // the crashing thread's stack, when known
  std::optional<std::uint64_t> stack_high;
  // The mapping that holds the fault address: a path, "[stack]", "" for
  // anonymous memory; absent when no mapping does (or none was recorded).
  std::optional<std::string> fault_mapping;
  bool maps_recorded = false;
  std::vector<StackFrame> frames;  // native, innermost first
  std::string unwind;              // "complete", "truncated", "failed"
  std::string symbolized;          // what naming the frames achieved, in words
  std::vector<PythonThreadStack> python;
  std::vector<std::string> extension_modules;  // faulthandler's "Extension modules:"
  std::vector<MappedModule> modules;           // every file mapped executable, in map order
  std::map<std::string, std::string> environment;  // LD_LIBRARY_PATH, LD_PRELOAD as the process started
  std::vector<std::string> problems;           // what could not be read, and why

  bool operator==(const CrashEvidence&) const = default;
};

struct RunEvidence {
  std::string directory;
  RunStarted started;
  std::optional<RunEnded> ended;  // absent when ftdiag itself was killed
  Fact<ExitStatus> job_status = Missing{};
  std::vector<ProcessEvidence> processes;       // kept whole, in order of first sight
  std::vector<ProcessSummary> process_summary;  // the rest, per command
  MemoryWatermarks memory;
  std::vector<TimelinePoint> timeline;
  ConsoleEvidence console;
  std::vector<SupervisorNote> notes;
  std::vector<std::string> journal_problems;  // lines that could not be read, and why
  // The kernel's log over the run as ftdiag read it live (/dev/kmsg): the
  // events recognised in it (OOM kills, faults, Xids). Missing with the
  // reason when it could not be read.
  Fact<KernelLogEvidence> kernel = Missing{MissingReason::not_present, "the run did not read the kernel log"};
  std::vector<SignalSent> signals;               // to the job's processes, with senders (as root)
  std::vector<SignalReceived> received_signals;  // by ftdiag itself, with senders
  // What the probes inside the job's processes wrote to the run folder
  // (docs/probes.md): crash records and Python fault dumps, by pid.
  std::vector<CrashEvidence> crashes;
  std::vector<ProbeMarker> probe_markers;       // saves, loads, evaluations as the Python probe saw them
  std::vector<LastGasp> last_gasps;             // memory near its limit: the largest processes then
  std::vector<PythonStacksTaken> python_stacks; // what the asked processes were running
  // GPU memory per device and process, at the GPU probe's own rate; the
  // first kMaxGpuSamples and the last ones past them (see run_builder.h).
  std::vector<model::GpuMemorySample> gpu_samples;
  std::vector<SaveForecast> save_forecasts;  // ftdiag run's forecasts of the checkpoint save
  // Signs of life: the heartbeats journaled (each synced) and the time of the
  // last one, and the time of the last record of any kind. A run with no end
  // record fell silent at its last one.
  std::uint64_t heartbeats = 0;
  std::optional<double> last_heartbeat;
  std::optional<double> last_record_time;

  bool operator==(const RunEvidence&) const = default;
};

// A stretch of lines of a plain log that mark the same training phase (as
// PhaseStretch for console.log, placed by line numbers: a plain log's lines
// carry a time only when their text starts with one).
struct LogPhase {
  std::string phase;
  std::uint64_t first_line_number = 0;  // 1-based, as an editor counts lines
  std::uint64_t last_line_number = 0;
  std::uint64_t lines = 0;
  std::string first_line;               // its text, cut at kMaxMarkerText bytes
  std::optional<double> first_time;     // when the first line's text says

  bool operator==(const LogPhase&) const = default;
};

// One of the last lines of a plain log.
struct LogLine {
  std::uint64_t line_number = 0;
  std::string text;  // what a terminal shows: the last "\r" redraw of the line, cut at kMaxEventText
  // The failure word the line holds (rules/failure-words.json): "host-memory",
  // "segfault", ...; weak evidence, read when no recogniser explains a death.
  std::optional<std::string> word;

  bool operator==(const LogLine&) const = default;
};

// A log file that was not written by ftdiag (a launcher's or trainer's
// output, a Slurm log, a pasted console): what was recognised in it, each
// with its line number (collectors/log_file_scan.h).
struct LogFileEvidence {
  Provenance from;
  std::uint64_t line_count = 0;
  std::uint64_t bytes = 0;
  Fact<bool> complete = true;     // Missing: the read stopped early, and why
  // The last line has no line end: the writer stopped mid-line (a process
  // killed while printing, a file copied while written).
  bool ends_mid_line = false;
  std::uint64_t nul_bytes = 0;    // a file with holes or binary garbage says so
  std::vector<LogEvent> events;   // oldest first: the first and the last kMaxLogEvents / 2
  std::uint64_t events_dropped = 0;
  std::vector<LogPhase> phases;   // oldest first: the last kMaxPhaseStretches
  std::vector<LogLine> tail;      // the last lines, oldest first
  std::uint64_t kernel_lines = 0; // kernel messages inside it (read into the host's kernel evidence)

  bool operator==(const LogFileEvidence&) const = default;
};

inline constexpr std::size_t kMaxLogEvents = 10000;

// A configuration that shapes memory use (a DeepSpeed JSON, an accelerate
// or trainer YAML, trainer_state.json), flattened to dotted keys:
// "zero_optimization.stage" -> "2".
struct ConfigEvidence {
  Provenance from;
  std::string kind;  // "deepspeed", "accelerate", "trainer-arguments", "trainer-state", ...
  std::map<std::string, std::string> settings;

  bool operator==(const ConfigEvidence&) const = default;
};

// A checkpoint directory (complete or half-written when the job died).
struct CheckpointEvidence {
  Provenance from;
  std::optional<std::uint64_t> step;
  std::uint64_t files = 0;
  Bytes bytes = 0;
  std::optional<double> modified;  // newest file's mtime
  Fact<bool> complete = Missing{MissingReason::not_present, "not checked"};

  bool operator==(const CheckpointEvidence&) const = default;
};

// A value an environment report stated (torch's collect_env, accelerate
// env, ds_report, nvidia-smi, a pip list, a sentence: collect/
// environment_report.h), with the file and line that said it, for the host
// whose GPUs or Python were not probed. Keys are listed in docs/evidence.md.
struct ReportedValue {
  std::string key;     // "torch.cuda_version", "package.deepspeed", "gpu.0.memory_bytes"
  std::string value;   // "12.1"; sizes in bytes, as a decimal number
  std::string format;  // the report that said it: "env-report", "ds-report", "nvidia-smi", ..., "prose"
  Provenance from;

  bool operator==(const ReportedValue&) const = default;
};

// What a collector did: which sources it read and whether it could. A
// collector that could not (no permission, nothing there) says so here:
// absence is evidence.
struct CollectorReport {
  std::string name;
  std::string section;            // the part of the document it fills
  std::vector<std::string> sources;  // what it read or tried to read
  Fact<bool> outcome = true;      // Missing with the reason when it could not

  bool operator==(const CollectorReport&) const = default;
};

// One machine of the job: its runs (journals of `ftdiag run`) and the
// sources that belong to the host rather than to one run.
struct HostEvidence {
  std::string name;  // host name; empty when no source said
  std::vector<RunEvidence> runs;
  Fact<KernelLogEvidence> kernel = Missing{MissingReason::not_present, "the kernel log was not collected"};
  // Free-form environment values a source reported ("cuda.driver_version"
  // -> "12.1") that have no typed home below.
  std::map<std::string, Fact<std::string>> environment;
  // The GPUs and their driver (probes/gpu), the Python installation the job
  // uses, and the host's settings: read by `ftdiag run` as the job started
  // (environment.json in its run folder) or by `ftdiag preflight`.
  Fact<model::GpuInventory> gpu = Missing{MissingReason::not_present, "the GPUs were not probed"};
  Fact<model::PythonEnvironment> python = Missing{MissingReason::not_present, "the Python environment was not read"};
  Fact<model::SystemSettings> system = Missing{MissingReason::not_present, "the host's settings were not read"};
  // What environment reports found with the evidence stated, in the order
  // read (a key may come from several reports; the first counts).
  std::vector<ReportedValue> reported;
  std::vector<ConfigEvidence> configs;
  std::vector<LogFileEvidence> logs;
  std::vector<CheckpointEvidence> checkpoints;
  std::vector<CrashEvidence> crashes;

  bool operator==(const HostEvidence&) const = default;
};

// Everything gathered about one job.
struct EvidenceDocument {
  int schema_version = kSchemaVersion;
  std::string generator;             // "ftdiag 0.1.0"
  std::vector<std::string> sources;  // the paths that were analyzed
  std::vector<HostEvidence> hosts;
  std::vector<CollectorReport> collectors;  // what each collector read, or why it could not
  // "on": every value passed the redaction step (docs/redaction.md); "off":
  // some may be as read (--no-redact); empty: not said (before version 9).
  std::string redaction;

  bool operator==(const EvidenceDocument&) const = default;
};

// Where a run sits in the document, for JSON pointers in facts.
struct RunRef {
  std::size_t host = 0;
  std::size_t run = 0;
  std::string pointer() const;  // "/hosts/H/runs/R"
};

// Calls visit(ref, run) for every run of every host, in document order.
template <class Visit>
void for_each_run(const EvidenceDocument& document, Visit&& visit) {
  for (std::size_t h = 0; h < document.hosts.size(); ++h) {
    for (std::size_t r = 0; r < document.hosts[h].runs.size(); ++r) visit(RunRef{h, r}, document.hosts[h].runs[r]);
  }
}

inline const RunEvidence& run_at(const EvidenceDocument& document, const RunRef& ref) {
  return document.hosts[ref.host].runs[ref.run];
}

std::size_t count_runs(const EvidenceDocument& document);

// The host of that name, added when absent.
HostEvidence& host_named(EvidenceDocument& document, const std::string& name);

}  // namespace ftdiag::evidence
