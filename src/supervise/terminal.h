// The pseudo-terminal that keeps a terminal a terminal for the job (tqdm,
// colours, line buffering) while ftdiag still sees every byte.
#pragma once

#include <termios.h>

#include <cstddef>
#include <optional>

#include "base/fact.h"
#include "base/unique_fd.h"

namespace ftdiag::supervise {

struct PseudoTerminal {
  UniqueFd master;
  UniqueFd slave;
};

// Opens a pty whose window size and line settings copy `like_fd`'s terminal.
Fact<PseudoTerminal> open_pseudo_terminal(int like_fd);

// Copies the window size of terminal `from` to terminal `to` (on SIGWINCH).
void copy_window_size(int from, int to);

// Writes typed keys to a non-blocking pty master, waiting for room at most
// `wait_ms` at a time (a job that does not read its input must not stall the
// event loop). Returns how many bytes went in.
std::size_t write_to_terminal(int master, const char* bytes, std::size_t size, int wait_ms);

// Puts a terminal in raw mode for as long as it lives, so that keys (Ctrl-C
// included) reach the job's pty unchanged and its line discipline, not ours,
// turns them into signals. Restores the saved mode on destruction and on
// restore(), which is safe to call before dying by a signal.
class RawModeGuard {
 public:
  explicit RawModeGuard(int fd);
  RawModeGuard(const RawModeGuard&) = delete;
  RawModeGuard& operator=(const RawModeGuard&) = delete;
  ~RawModeGuard() { restore(); }
  void restore();

 private:
  int fd_;
  std::optional<termios> saved_;
};

}  // namespace ftdiag::supervise
