// How a process ended, decoded from a wait status.
#pragma once

#include <optional>
#include <string>

namespace ftdiag::evidence {

struct ExitStatus {
  std::optional<int> exit_code;  // set when the process called exit()
  std::optional<int> signal;     // set when a signal killed it
  bool core_dumped = false;

  // Decodes a raw wait status (waitpid(2), or the netlink connector's exit_code).
  static ExitStatus from_wait_status(int wait_status);
  static ExitStatus exited(int code) { return ExitStatus{code, std::nullopt, false}; }
  static ExitStatus killed(int sig, bool core = false) { return ExitStatus{std::nullopt, sig, core}; }

  // The number a launcher prints: N for exit(N), -S for death by signal S
  // (torchrun's "exitcode: -9", DeepSpeed's "return code = -9").
  int launcher_code() const { return signal ? -*signal : exit_code.value_or(0); }

  // "exit 3", "killed by SIGKILL", "killed by SIGSEGV (core dumped)".
  std::string describe() const;

  bool operator==(const ExitStatus&) const = default;
};

// "SIGKILL" for 9, "SIG42" for numbers without a name.
std::string signal_name(int signal);

}  // namespace ftdiag::evidence
