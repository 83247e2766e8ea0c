// The kernel's log, read from any of its renderings, turned into the events
// that explain a dead job: OOM kills (every kernel generation), faults
// (segfault, traps, arm64 unhandled exceptions, fatal-signal reports),
// NVIDIA Xids and lost GPUs, and the rate limiter's gaps.
//
// Pure functions over text: no files, no clocks, no process table. Matching
// an event to a job's process (by pid and time, never by name: names are
// truncated to 15 bytes and may hold spaces and parentheses) is the caller's.
// Formats: docs/kernel-log.md (from shared reference log-formats.md, §1, §3, §4).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ftdiag::parse {

// When and where a line was logged, as far as its rendering says.
struct KernelStamp {
  std::optional<std::uint64_t> sequence;     // /dev/kmsg sequence number
  std::optional<std::int64_t> monotonic_us;  // printk clock: µs since boot ([secs], kmsg, -r, -x, short-monotonic, json)
  std::optional<double> wall_time;           // seconds since the epoch (dmesg -T/iso, syslog, journal), when printed
  std::optional<int> level;                  // 0..7 (3 err, 4 warn, 6 info), when printed
  std::optional<int> facility;               // 0 kernel, 1 user (a userspace write to /dev/kmsg)
  std::string caller;                        // CONFIG_PRINTK_CALLER tag: "T1234", "C3"; empty when absent

  bool operator==(const KernelStamp&) const = default;
};

// One logical line with its rendering's prefix taken off: "\xNN" escapes
// undone, NUL read as a space. A record holding several lines (the v2
// memcg stats block) gives one KernelLine per line, all with its stamp.
struct KernelLine {
  std::string message;
  KernelStamp stamp;
  std::uint64_t line_number = 0;  // 1-based, in the text it came from

  bool operator==(const KernelLine&) const = default;
};

// How wall-clock stamps without a year or zone are read.
struct KernelTextOptions {
  // Year for syslog stamps ("Nov 30 02:53:56 host kernel: ..."), which
  // print none; the current year when absent.
  std::optional<int> year;
};

// Splits text in any rendering (each line may differ): /dev/kmsg records,
// dmesg ([secs], -T, --time-format iso, -x, -r, -J), journalctl -k (short,
// short-iso, short-precise, short-monotonic, json), syslog files (kern.log,
// messages). Lines that are not kernel messages (a journal's userspace
// lines) are dropped; "\r" breaks a line; CRLF is accepted. Never throws.
std::vector<KernelLine> split_kernel_log(std::string_view text, const KernelTextOptions& options = {});

// One /dev/kmsg record, "prio,seq,usec,flag[,...];message" with its
// " KEY=value" continuation lines; nullopt when it is not one.
// Its message keeps the record's own line breaks (escaped "\x0a"), which
// split_kernel_log turns into one KernelLine each.
std::optional<KernelLine> decode_kmsg_record(std::string_view record);

// --- events --------------------------------------------------------------

// A row of the OOM report's task table (values as printed: pages, except
// pgtables in bytes).
struct OomTask {
  int pid = 0;
  std::optional<int> uid;
  std::optional<int> tgid;
  std::optional<std::uint64_t> total_vm_pages;
  std::optional<std::uint64_t> rss_pages;
  std::optional<std::uint64_t> rss_anon_pages;   // 6.8+ layout
  std::optional<std::uint64_t> rss_file_pages;
  std::optional<std::uint64_t> rss_shmem_pages;
  std::optional<std::uint64_t> swap_entries;
  std::optional<std::uint64_t> pgtables_bytes;   // 4.15+ (bytes, as printed)
  std::optional<int> oom_score_adj;
  std::string name;  // everything after the last numeric column

  bool operator==(const OomTask&) const = default;
};

// One OOM kill: the "Killed process" line (never rate-limited) and what the
// same report printed before it, when it did (header, memcg block, task
// table, "oom-kill:" summary may be missing in a burst).
struct OomKill {
  KernelStamp stamp;            // of the "Killed process" line
  std::uint64_t line_number = 0;
  int pid = 0;                  // the victim (host pid namespace)
  std::string comm;             // the victim's comm, as printed
  // "Out of memory", "Memory cgroup out of memory",
  // "Out of memory (oom_kill_allocating_task)"; empty in forms without one.
  std::string origin;
  // pgtables_kb: early 5.4 kernels printed bytes labelled kB; a value larger
  // than total-vm can only be that, and is read as bytes.
  std::optional<std::uint64_t> total_vm_kb, anon_rss_kb, file_rss_kb, shmem_rss_kb, pgtables_kb;
  std::optional<int> uid;
  std::optional<int> oom_score_adj;
  std::optional<unsigned> score;  // "Kill process N (c) score S or sacrifice child" (3.x-5.0)

  // The "oom-kill:" summary (4.19+).
  std::string constraint;       // "CONSTRAINT_NONE", "CONSTRAINT_MEMCG", ...; empty when not printed
  bool global_oom = false;      // ",global_oom" in the summary
  std::string oom_memcg;        // the cgroup whose limit was hit
  std::string task_memcg;       // the victim's cgroup
  std::string cpuset;
  std::string mems_allowed;
  // "Task in A killed as a result of limit of B" (before 4.19).
  std::string limit_of;

  // The header: the task that triggered the OOM (often not the victim).
  std::string trigger_comm;
  std::optional<int> trigger_pid;  // from the "CPU: .. PID: .. Comm:" banner
  std::string gfp_mask;
  std::optional<int> order;        // -1: forced with SysRq
  std::optional<int> trigger_oom_score_adj;

  // The memcg block: "memory: usage N kB, limit N kB, failcnt N".
  std::optional<std::uint64_t> usage_kb, limit_kb, failcnt;
  std::vector<OomTask> tasks;    // the task table, as printed
  bool oom_group = false;        // "Tasks in X are going to be killed due to memory.oom.group set"
  // "oom_reaper: reaped process N (c), now anon-rss:..." for this victim.
  bool reaped = false;
  // The report was cut short before its "Killed process" line (a paste, a
  // log rotated mid-report): the victim is the one its "oom-kill:" summary
  // names, the kernel's choice, and the fields of the kill line are unknown.
  bool kill_line_missing = false;
  // ... and its summary was cut before the victim's pid too: the victim is
  // the task-table row the kernel's badness rule picks (rss + swap + page
  // tables, adjusted by oom_score_adj), when one row clearly does; pid is 0
  // when none does.
  bool victim_inferred = false;

  bool operator==(const OomKill&) const = default;
};

// A fatal fault the kernel reported for a user process.
struct KernelFault {
  KernelStamp stamp;
  std::uint64_t line_number = 0;
  // "segfault", "general-protection", "trap" (invalid opcode, divide
  // error, int3, ...: `trap` names it), "unhandled-exception" (arm64),
  // "fatal-signal" (print-fatal-signals).
  std::string kind;
  std::string trap;              // "invalid opcode", "divide error", "int3", or empty
  std::string comm;              // thread name
  std::optional<int> pid;        // thread id (host pid namespace)
  std::optional<int> signal;     // fatal-signal's number; the signal the kind implies otherwise
  std::optional<std::uint64_t> address, ip, sp, error_code;
  std::string object;            // the mapping that held ip: "libc.so.6"
  std::optional<std::uint64_t> object_offset, map_start, map_size;
  std::optional<int> cpu;
  std::string detail;            // arm64 ESR text, etc.

  bool operator==(const KernelFault&) const = default;
};

// An NVIDIA Xid, a GPU that fell off the bus, or a fatal PCIe error on a
// GPU's link that the kernel's AER driver reported.
struct GpuXid {
  KernelStamp stamp;
  std::uint64_t line_number = 0;
  std::string pci;               // normalised "dddd:bb:dd", lower case
  std::optional<int> gpu_instance, compute_instance;  // MIG
  std::optional<int> code;       // absent for a bare "has fallen off the bus" line
  std::optional<int> pid;
  std::string process_name;
  std::string message;           // the text after pid/name
  bool pcie_error = false;       // the AER driver's line, not the NVIDIA driver's: no Xid code

  bool operator==(const GpuXid&) const = default;
};

// The rate limiter dropped messages: "show_signal_msg: 3 callbacks suppressed".
struct KernelSuppressed {
  KernelStamp stamp;
  std::uint64_t line_number = 0;
  std::string source;            // "show_signal_msg", "__ratelimit", ...
  std::uint64_t count = 0;

  bool operator==(const KernelSuppressed&) const = default;
};

using KernelEvent = std::variant<OomKill, KernelFault, GpuXid, KernelSuppressed>;

// The events of lines in log order, each OOM kill with what its report
// printed before it (grouped by report; interleaved reports of different
// cgroups kept apart by their memcg paths and the header's CPU/PID).
std::vector<KernelEvent> scan_kernel_lines(const std::vector<KernelLine>& lines);

// Single-line parsers, exposed for tests and fuzzing. Each takes a message
// without its prefix.
std::optional<KernelFault> parse_fault_line(std::string_view message);
std::optional<GpuXid> parse_xid_line(std::string_view message);

}  // namespace ftdiag::parse
