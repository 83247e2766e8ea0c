// Copies the job's output to where ftdiag's own output goes, byte for byte,
// and into console.log with a timestamp per line.
#pragma once

#include <cstddef>
#include <memory>

#include "base/unique_fd.h"
#include "evidence/console_log.h"

namespace ftdiag::supervise {

class OutputRelay {
 public:
  // Takes the read end of the job's pipe or the pty master (made
  // non-blocking here, and a pipe enlarged); `destination` is ours (1 or 2)
  // and is not owned.
  OutputRelay(UniqueFd source, int destination, evidence::ConsoleStream stream);

  // Moves what can be read now. Returns false once the source is finished:
  // end of file, EIO from a pty whose job side has closed, or our own
  // destination gone (EPIPE: then the source is closed too, so the job gets
  // the SIGPIPE it would have got without ftdiag).
  bool pump(evidence::ConsoleLogWriter& log, double now);

  int source_fd() const { return source_.get(); }
  bool is_open() const { return source_.valid(); }
  void close() { source_.reset(); }

  // One read's worth: two default pipe buffers, so that a job printing fast
  // is drained in few system calls.
  static constexpr std::size_t kBufferBytes = 128 * 1024;
  // What one pump moves at most, so one chatty stream cannot starve the loop.
  static constexpr std::size_t kBytesPerPump = 8 * kBufferBytes;
  // The pipe's capacity asked for (the kernel's default is 64 KiB, 1 ms at
  // 64 MB/s; an unprivileged process may ask up to /proc/sys/fs/pipe-max-size,
  // 1 MiB by default): a job printing in bursts keeps going while the event
  // loop takes a sample or writes to a slow terminal. The kernel allocates
  // the pages only while they hold unread output, charged to the writer (the
  // job's memory cgroup): at most this much per pipe, and only when we lag.
  static constexpr int kPipeBytes = 1024 * 1024;

 private:
  UniqueFd source_;
  int destination_;
  evidence::ConsoleStream stream_;
  std::unique_ptr<char[]> buffer_;
  bool is_pipe_ = false;
};

// Writes all of `bytes` to a descriptor that may be non-blocking (inherited
// O_NONBLOCK), waiting for it to drain. False on any other error.
bool write_fully(int fd, const char* bytes, std::size_t size);

}  // namespace ftdiag::supervise
