// Running a helper program (the GPU probe, a Python interpreter asked for
// its sys.path) with a deadline and its output captured. Not the job's
// spawn (supervise/spawn.h: pty, oom_score_adj, process group handed to the
// job): a helper is ours, may hang or crash (a broken driver does both), and
// whatever it does becomes a result, never ftdiag's hang or crash.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ftdiag::collect {

struct HelperRequest {
  std::vector<std::string> argv;  // argv[0] is a path or a name looked up on PATH
  // The environment to run it with; absent: ftdiag's own.
  std::optional<std::vector<std::string>> environment;
  std::chrono::milliseconds deadline{5000};
  std::size_t max_output = 4 << 20;  // bytes of stdout kept; the rest is read and dropped
  std::size_t max_errors = 64 << 10; // bytes of stderr kept
};

struct HelperResult {
  enum class Ending { exited, killed_by_signal, timed_out, could_not_start };
  Ending ending = Ending::could_not_start;
  int exit_code = 0;  // exited
  int signal = 0;     // killed_by_signal (timed_out: the signal we sent)
  std::string output;  // stdout
  std::string errors;  // stderr
  bool output_truncated = false;
  std::string start_error;  // could_not_start: "execve /x: No such file or directory"
  double seconds = 0;

  bool succeeded() const { return ending == Ending::exited && exit_code == 0; }
  // "exited with code 1", "killed by SIGSEGV", "timed out after 5.0 s", "could not start: …"
  std::string describe() const;
};

// Runs the program in a process group of its own, with stdin on /dev/null,
// the signal mask and dispositions reset, and kills the whole group at the
// deadline. Safe to call from a process with threads (posix_spawn), and the
// child is always reaped before returning.
HelperResult run_helper(const HelperRequest& request);

}  // namespace ftdiag::collect
