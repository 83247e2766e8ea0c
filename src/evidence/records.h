// The records of the job journal (journal.jsonl), one JSON object per line.
//
// A collector or the supervisor produces these; the journal writer appends
// them; the run builder folds them back into the evidence document. Times are
// seconds since the Unix epoch (wall clock, microsecond resolution), so they
// line up with the console log and with kernel log records.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "base/fact.h"
#include "evidence/exit_status.h"
#include "model/environment.h"
#include "model/memory.h"

namespace ftdiag::evidence {

using model::Bytes;

// The journal's format, written in its first record. 1: journals written
// before the field existed (they lack it); 2: adds journal_format itself and
// the cgroup's under_oom; 3: cgroup readings say whether their peak was reset
// for the job (peak_reset), notes may carry a write_failure. Readers accept
// every format up to this one. 4: the run records the boot time, the kernel
// log lines of the run (kernel), signals sent to the job's processes
// (signal) and signals ftdiag received, with their senders (received).
// 5: the probes inside the job (docs/probes.md): phase markers (probe), the
// last gasp before memory ran out (gasp) and the Python stacks it took (stacks).
// 6: GPU memory per device and process, as the GPU probe sampled it (gpu).
// 7: cgroup readings name a process outside the job that shares the cgroup
// (shared_with). 8: the run record says whether the journal's values passed
// the redaction step (redaction). 9: ftdiag's forecast of the checkpoint
// save, made while the job trained (forecast). 10: the run record names the
// node in its scheduler (node) and the job's placement variables (placement);
// heartbeats, synced, every heartbeat_interval_s (heartbeat).
inline constexpr int kJournalFormat = 10;

// First line of every journal: who ran what, where, and how it was watched.
struct RunStarted {
  double time = 0;
  std::optional<int> journal_format;  // absent in format 1
  std::string ftdiag_version;
  std::string host;
  std::optional<int> rank;  // from RANK / SLURM_PROCID / OMPI_COMM_WORLD_RANK
  std::vector<std::string> argv;
  std::string cwd;
  int supervisor_pid = 0;
  int job_pid = 0;  // the direct child, as seen in ftdiag's pid namespace
  double sample_interval_s = 0.5;
  bool pseudo_terminal = false;
  // Which ways of seeing the process tree worked: "netlink", "subreaper",
  // "proc-scan". A mechanism that failed is recorded with its reason.
  std::map<std::string, Fact<bool>> mechanisms;
  // Wall clock of the machine's boot (CLOCK_REALTIME - CLOCK_MONOTONIC at
  // the start): places the kernel log's and the tracer's monotonic stamps.
  std::optional<double> boot_time;
  // Userspace OOM killers running on the node when the job started
  // (systemd-oomd, earlyoom): missing when /proc could not be listed.
  Fact<std::vector<std::string>> oom_daemons = Missing{MissingReason::not_present, "not recorded"};
  // The scheduler's name for the job ("slurm 1234.0"); empty outside any.
  std::string scheduler_job;
  // "on": the journal's values passed the redaction step (docs/redaction.md);
  // "off": `ftdiag run --no-redact` wrote them as the job had them; empty
  // before journal format 8.
  std::string redaction;
  // The node's name as its scheduler knows it (SLURMD_NODENAME), where it
  // differs from the host name (several slurmd on one machine) or the host
  // name is not what the scheduler reports; empty outside a scheduler.
  std::string node;
  // The variables that place this run in a distributed job (SLURM_JOB_ID,
  // SLURM_NODEID, SLURM_PROCID, RANK, LOCAL_RANK, GROUP_RANK, WORLD_SIZE,
  // ...: supervise/job_identity.h), as ftdiag found them.
  std::map<std::string, std::string> placement;
  // How often a heartbeat record is journaled and synced (absent before
  // journal format 10: the samples were the only sign of life).
  std::optional<double> heartbeat_interval_s;

  bool operator==(const RunStarted&) const = default;
};

// The run's node where its records group it: the scheduler's node name, else
// the host name.
inline const std::string& node_of(const RunStarted& started) {
  return started.node.empty() ? started.host : started.node;
}

// ftdiag is alive and its journal reached the disk up to here: written every
// heartbeat_interval_s and synced, so a node that vanished (power, a kernel
// panic, the network) is told from one whose ftdiag exited: its last
// heartbeat is its last sign of life.
struct Heartbeat {
  double time = 0;
  std::uint64_t sequence = 0;  // 1, 2, ...: a gap says records were lost

  bool operator==(const Heartbeat&) const = default;
};

// A process of the job tree was seen for the first time (or exec'd anew).
struct ProcessSeen {
  double time = 0;
  int pid = 0;
  int ppid = 0;
  std::vector<int> nspid;  // pid in each pid namespace, outermost first
  std::vector<std::string> argv;
  std::string comm;
  std::optional<std::uint64_t> start_ticks;  // /proc/PID/stat starttime: tells pid reuse apart
  std::string seen_by;  // "spawn", "netlink-fork", "netlink-exec", "proc-scan"
  // The variables that place it in a distributed job (RANK, LOCAL_RANK,
  // WORLD_SIZE, SLURM_PROCID, ...: collect/host/proc_environ.h), nothing else.
  std::map<std::string, std::string> environment;

  bool operator==(const ProcessSeen&) const = default;
};

// A process of the job tree ended. `status` is Missing when only its
// disappearance was seen (its parent reaped it and no netlink was available).
struct ProcessDied {
  double time = 0;
  int pid = 0;
  Fact<ExitStatus> status = Missing{MissingReason::not_present, "not seen"};
  std::vector<std::string> witnesses;  // "netlink", "waitpid", "subreaper", "proc-scan"

  bool operator==(const ProcessDied&) const = default;
};

// The readings themselves are defined once, in model/memory.h.
using model::CgroupMemory;
using model::FilesystemUsage;
using model::NodeMemory;
using model::ProcessMemory;

// One tick of the sampler.
struct MemorySample {
  double time = 0;
  NodeMemory node;
  Fact<CgroupMemory> cgroup = Missing{};
  Fact<FilesystemUsage> dev_shm = Missing{};
  std::vector<ProcessMemory> processes;

  bool operator==(const MemorySample&) const = default;
};

// Writing the record itself failed (the disk is full, an I/O error): the
// record is incomplete from `since` on. The job is never disturbed by it.
struct WriteFailure {
  double since = 0;        // when the first write or sync failed
  std::string file;        // "journal.jsonl", "console.log"
  std::string operation;   // "write", "fdatasync"
  int error_number = 0;    // errno
  std::string error;       // its text, "No space left on device"

  bool operator==(const WriteFailure&) const = default;
};

// Something about the watching itself: a mechanism lost events, a limit hit.
struct SupervisorNote {
  double time = 0;
  std::string what;
  // Set on the note that records the first failed write of the record.
  std::optional<WriteFailure> write_failure;

  bool operator==(const SupervisorNote&) const = default;
};

// A record of the kernel's log, read from /dev/kmsg while the job ran, kept
// as the kernel wrote it ("prio,seq,usec,flags;message", escapes and all):
// the run builder parses it (parse/kernel/kernel_log.h), so a better parser later
// reads old journals better too.
struct KernelLogged {
  double time = 0;     // when ftdiag read it
  std::string record;

  bool operator==(const KernelLogged&) const = default;
};

// A signal sent to a process of the job (or to ftdiag), seen by the kernel's
// signal_generate tracepoint as it was generated: who sent it to whom.
struct SignalSent {
  double time = 0;
  int signal = 0;
  int target_pid = 0;
  std::string target_comm;
  int sender_pid = 0;       // the task that was running: for SI_KERNEL, the one that faulted or allocated
  std::string sender_comm;
  int code = 0;             // si_code: 0 SI_USER (kill), 0x80 SI_KERNEL (the OOM killer, a fault), -6 SI_TKILL
  int result = 0;           // 0 delivered, 1 ignored, 2 already pending, 3 overflow, 4 lost info

  bool operator==(const SignalSent&) const = default;
};

// A signal ftdiag itself received, with its sender as signalfd tells it.
struct SignalReceived {
  double time = 0;
  int signal = 0;
  int sender_pid = 0;      // 0: the kernel, or a sender in another pid namespace
  int sender_uid = 0;
  int code = 0;            // si_code: 0 SI_USER, 0x80 SI_KERNEL, -6 SI_TKILL
  std::string sender_comm;     // read from /proc when the signal arrived; empty when gone
  std::string sender_command;  // its command line, cut at 500 bytes
  bool forwarded = false;  // passed on to the job

  bool operator==(const SignalReceived&) const = default;
};

// A phase marker a probe inside the job sent (docs/probes.md): a framework's
// save, load or evaluation began or ended in process `pid`.
struct ProbeMarker {
  double time = 0;         // the probe's clock, when the call began or ended
  int pid = 0;             // as the process sees itself (its own pid namespace)
  std::optional<int> rank;
  std::string marker;      // "begin", "end", "hello"
  std::string phase;       // "checkpoint-save", "checkpoint-load", "evaluation"; empty for hello
  std::string what;        // "transformers.Trainer._save_checkpoint", "torch.save"
  std::string error;       // the exception type an "end" left with; empty otherwise

  bool operator==(const ProbeMarker&) const = default;
};

// The last gasp: memory neared its limit, so ftdiag looked at the largest
// processes and asked the Python ones for their stacks, in case a SIGKILL
// follows (it cannot be caught, so this is the moment to look).
struct LastGasp {
  double time = 0;
  std::string reason;              // "the memory cgroup at 96% of its limit"
  double pressure = 0;             // that ratio
  std::vector<ProcessMemory> largest;  // the largest processes, largest first
  std::string smaps_rollup;        // /proc/PID/smaps_rollup of the largest
  std::vector<int> asked;          // pids asked for their Python stacks

  bool operator==(const LastGasp&) const = default;
};

// Python stacks a process of the job dumped when ftdiag asked (faulthandler's
// text, all threads), read from python-stacks.<pid>.txt.
struct PythonStacksTaken {
  double time = 0;
  int pid = 0;
  std::string text;

  bool operator==(const PythonStacksTaken&) const = default;
};

// ftdiag run's forecast of the job's checkpoint save (docs/memory-model.md,
// "Before the save"): once the job had trained a few steps, the memory it
// held then and the memory model's save peak for its configs, against the
// memory the job may use. Journaled when first made, and again with the
// warning when a later forecast no longer fits.
struct SaveForecast {
  double time = 0;
  Bytes held_bytes = 0;             // the job's memory then: its cgroup's usage under a limit, else its summed RSS
  Bytes predicted_peak_bytes = 0;   // at the save, for the node
  Bytes capacity_bytes = 0;         // the memory the job may use
  std::string capacity_source;      // "the job's cgroup limit", "the node's RAM"
  std::string setup;                // what was forecast: "ZeRO-2, ..., on 2 ranks per node, fp32"
  std::string formula;              // how the peak is made up
  std::string first_save;           // when the first save comes, as the configs say ("at step 500 (save_steps)"); empty: not said
  bool fits = true;
  std::string warning;              // what was printed, when it does not fit

  bool operator==(const SaveForecast&) const = default;
};

// Last line of a complete journal. Absent when ftdiag itself was killed.
struct RunEnded {
  double time = 0;
  ExitStatus job_status;

  bool operator==(const RunEnded&) const = default;
};

using JournalRecord = std::variant<RunStarted, ProcessSeen, ProcessDied, MemorySample,
                                   SupervisorNote, RunEnded, KernelLogged, SignalSent, SignalReceived,
                                   ProbeMarker, LastGasp, PythonStacksTaken, model::GpuMemorySample, SaveForecast,
                                   Heartbeat>;

}  // namespace ftdiag::evidence
