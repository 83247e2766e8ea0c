// Copies the job's output to where ftdiag's own output goes, byte for byte,
// and into console.log with a timestamp per line.
#pragma once

#include "base/unique_fd.h"
#include "evidence/console_log.h"

namespace ftdiag::supervise {

class OutputRelay {
 public:
  // Takes the read end of the job's pipe or the pty master (made
  // non-blocking here); `destination` is ours (1 or 2) and is not owned.
  OutputRelay(UniqueFd source, int destination, evidence::ConsoleStream stream);

  // Moves what can be read now. Returns false once the source is finished:
  // end of file, EIO from a pty whose job side has closed, or our own
  // destination gone (EPIPE: then the source is closed too, so the job gets
  // the SIGPIPE it would have got without ftdiag).
  bool pump(evidence::ConsoleLogWriter& log, double now);

  int source_fd() const { return source_.get(); }
  bool is_open() const { return source_.valid(); }
  void close() { source_.reset(); }

 private:
  UniqueFd source_;
  int destination_;
  evidence::ConsoleStream stream_;
};

// Writes all of `bytes` to a descriptor that may be non-blocking (inherited
// O_NONBLOCK), waiting for it to drain. False on any other error.
bool write_fully(int fd, const char* bytes, std::size_t size);

}  // namespace ftdiag::supervise
