// Helpers for the integration tests: start the real ftdiag (or a crasher)
// with an argv and no shell, collect what it writes, wait for it with a
// deadline, and read back the job directory it wrote.
//
// Nothing here sleeps to synchronise: waits are for something observable
// (a line of output, a process's end, a record in the journal), each bounded
// by a deadline so that a hang fails the test instead of blocking CI.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ftdiag::itest {

namespace fs = std::filesystem;
using nlohmann::json;

// Every wait in these tests gives up after this long.
inline constexpr double kDeadlineSeconds = 30;

// Debian's Python, with its CPU torch (python3-torch); the python3 on PATH may
// be another one.
inline constexpr const char* kDebianPython = "/usr/bin/python3";

fs::path ftdiag_binary();
fs::path crasher(std::string_view name);

// A fresh directory under /tmp, removed with its contents on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  fs::path operator/(const fs::path& name) const { return path_ / name; }

 private:
  fs::path path_;
};

// How to start a process. The environment is the test's own minus the rank
// variables ftdiag reads (RANK, SLURM_PROCID, ...), then `env` applied on top.
struct Launch {
  std::vector<std::string> argv;
  std::map<std::string, std::optional<std::string>> env;  // value: set; nullopt: unset
  fs::path cwd;                  // empty: the test's own
  int stdin_fd = -1;             // -1: /dev/null (not closed by the launch)
  int terminal_fd = -1;          // a pty slave: new session, controlling tty, stdin/stdout/stderr
  std::optional<rlim_t> core_limit;  // RLIMIT_CORE soft limit for it (and what it starts)
  std::optional<mode_t> umask;
  fs::path cgroup_procs;         // joins this cgroup (writes its pid to the file) before exec
  std::optional<uid_t> uid;      // drops to this uid and gid before exec (needs root)
};

// A running process and what it wrote. Without a terminal_fd, stdout and
// stderr are pipes read into memory; with one, `terminal_master` (if given to
// capture()) is read into terminal().
class Process {
 public:
  // Throws std::runtime_error when the process cannot be started.
  explicit Process(const Launch& launch);
  // A process still running is SIGKILLed and reaped. Whenever it ends, what
  // it left running in its process group (each Process has its own) is
  // SIGKILLed, so nothing a test started outlives it.
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  // Also reads this descriptor (a pty master) into terminal(); EIO is its end.
  void capture_terminal(int master_fd);

  // Reads output until stdout (or the terminal) contains `needle`. False when
  // the deadline passed or the process ended without writing it.
  bool wait_for_output(std::string_view needle, double seconds = kDeadlineSeconds);
  // Waits for a whole line of stdout (or the terminal) that contains `needle`
  // and returns it without its end; nullopt as for wait_for_output.
  std::optional<std::string> wait_for_line(std::string_view needle, double seconds = kDeadlineSeconds);
  // Waits for the end and the rest of the output. The wait status, or nullopt
  // when it still ran at the deadline (it is SIGKILLed then).
  std::optional<int> finish(double seconds = kDeadlineSeconds);
  void send(int signal) const;

  const std::string& out() const { return captures_[0].data; }
  const std::string& err() const { return captures_[1].data; }
  const std::string& terminal() const { return captures_[2].data; }
  // Input to the process's stdin when Launch::stdin_fd was a pipe is the
  // test's business; these only read.

 private:
  struct Capture {
    int fd = -1;
    std::string data;
  };
  void pump(int timeout_ms);
  bool reap(int flags);
  bool captures_open() const;

  pid_t pid_ = -1;
  int pidfd_ = -1;
  std::optional<int> status_;
  Capture captures_[3];
};

// What a finished process left.
struct Outcome {
  std::optional<int> status;  // wait status; nullopt: killed at the deadline
  std::string out;
  std::string err;

  bool exited_with(int code) const;
  bool killed_by(int signal) const;
  std::string describe() const;  // for failure messages: status and stderr
};

Outcome run(const Launch& launch, double seconds = kDeadlineSeconds);

// Whether Debian's python3-torch imports (asked once).
bool torch_available();

// "exit 3", "signal 9 (core dumped)", "still running".
std::string describe_status(std::optional<int> status);

// ftdiag run [options] --job-dir DIR --interval 0.1 -- job...
std::vector<std::string> ftdiag_run(const fs::path& job_dir, const std::vector<std::string>& job,
                                    const std::vector<std::string>& options = {});
std::vector<std::string> crasher_argv(std::string_view name, const std::vector<std::string>& args);

// `ftdiag analyze PATH --format json`: the report (docs/report-json.md) and
// the evidence document inside it (docs/evidence.md); both null when it
// printed no JSON.
struct Analysis {
  Outcome outcome;
  json report;
  json document;
};
Analysis analyze(const fs::path& path);

// JSON is handled through non-const references on purpose: nlohmann's const
// operator[] on a missing key is undefined behaviour, the non-const one
// yields null, so a changed document fails a check instead of crashing.
//
// The single run of a document; fails the current test when there is not exactly one.
json& only_run(json& document);
// Every run of every host, in document order (a copy).
json all_runs(const json& document);
// The process with this pid in a run's "processes" (the first, when repeated); null when absent.
json* find_process(json& run, int pid);
// How many entries of "processes" carry this pid.
int count_processes(const json& run, int pid);
bool has_witness(const json& death, std::string_view witness);

// The text with its wrapped lines joined: each line break and the
// indentation after it become one space, so that a check finds a phrase
// wherever the report wrapped it to the terminal's width.
std::string joined(std::string_view text);

// Run folders in a job directory, sorted.
std::vector<fs::path> run_folders(const fs::path& job_dir);
std::string read_text(const fs::path& file);
// The permission bits of PATH itself (a link's own, not its target's) in
// octal, "600"; the test fails when PATH cannot be stat'ed.
std::string octal_mode(const fs::path& path);
void write_text(const fs::path& file, std::string_view text);
// The journal's records that parse (others are skipped).
std::vector<json> read_journal(const fs::path& run_dir);
// The pid printed after `key` ("pid=" or "pid ") in text, or -1.
int pid_after(std::string_view text, std::string_view key);

// Polls an observable condition (a record in a file, a process state) until
// it holds; false at the deadline.
bool wait_until(const std::function<bool()>& condition, double seconds = kDeadlineSeconds);

// A named pipe for handshakes. write_line() blocks until the other side
// opens it for reading, up to the deadline.
class Fifo {
 public:
  explicit Fifo(fs::path path);
  const fs::path& path() const { return path_; }
  bool write_line(std::string_view line, double seconds = kDeadlineSeconds) const;
  // Reads one line; nullopt at the deadline.
  std::optional<std::string> read_line(double seconds = kDeadlineSeconds) const;

 private:
  fs::path path_;
};

std::string host_name();

// Whether this machine lets ftdiag's tests make a pid namespace (root, or
// user namespaces): `unshare --pid --fork --mount-proc` runs a program.
bool pid_namespaces_available();
double wall_now();

}  // namespace ftdiag::itest
