// ftdiag's side of a stream's relay (relay_process.h): reads the copy of the
// job's output that the relay process tees, into console.log with a
// timestamp per line. Writing the output itself to ftdiag's stdout or stderr
// is the relay process's job, so nothing here can block on a slow consumer.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <memory>

#include "base/unique_fd.h"
#include "journal/console_log.h"

namespace ftdiag::supervise {

class OutputRelay {
 public:
  // Takes the read end of the tee pipe (made non-blocking here, and
  // enlarged) and the pid of the relay process that writes it.
  OutputRelay(UniqueFd tee, pid_t relay_pid, evidence::ConsoleStream stream);

  // Logs what can be read now. Returns false once the tee is finished: end
  // of file, the relay process has read the end of the job's output.
  bool pump(journal::ConsoleLogWriter& log, double now);

  int source_fd() const { return source_.get(); }
  bool is_open() const { return source_.valid(); }
  // Stops listening: the relay then drops its copy and only relays.
  void close() { source_.reset(); }
  // When the last bytes were read (0: never).
  double last_read_at() const { return last_read_at_; }

  pid_t relay_pid() const { return relay_pid_; }
  bool relay_running() const { return relay_pid_ > 0; }
  // The relay process was reaped.
  void relay_ended() { relay_pid_ = -1; }

  // One read's worth: two default pipe buffers, so that a job printing fast
  // is drained in few system calls.
  static constexpr std::size_t kBufferBytes = 128 * 1024;
  // What one pump moves at most, so one chatty stream cannot starve the loop.
  static constexpr std::size_t kBytesPerPump = 8 * kBufferBytes;
  // The capacity asked for the job's pipe and the tee (the kernel's default
  // is 64 KiB, 1 ms at 64 MB/s; an unprivileged process may ask up to
  // /proc/sys/fs/pipe-max-size, 1 MiB by default): a job printing in bursts
  // keeps going while the event loop takes a sample. The kernel allocates the
  // pages only while they hold unread output, charged to the writer: at most
  // this much per pipe, and only when the reader lags.
  static constexpr int kPipeBytes = 1024 * 1024;

 private:
  UniqueFd source_;
  pid_t relay_pid_;
  evidence::ConsoleStream stream_;
  std::unique_ptr<char[]> buffer_;
  double last_read_at_ = 0;
};

}  // namespace ftdiag::supervise
