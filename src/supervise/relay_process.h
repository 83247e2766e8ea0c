// The job's output goes to ftdiag's stdout and stderr through small relay
// processes, one per stream, not through ftdiag's event loop:
//
//   job --pipe or pty--> relay --blocking write--> ftdiag's stdout (or stderr)
//                          \--copy, first--> tee pipe --> ftdiag: console.log
//
// So a consumer that stops reading (a full pipe, a paused terminal) blocks
// the relay, then the job on its own write as it would without ftdiag, while
// ftdiag goes on sampling, reaping and forwarding signals. And the output
// does not depend on ftdiag being alive: when ftdiag ends (or is SIGKILLed)
// while a process of the job still holds the output, the relay carries on
// until the last writer closes it, so a daemon the job left behind or the
// job itself does not die of SIGPIPE because of ftdiag.
#pragma once

#include <sys/types.h>

namespace ftdiag::supervise {

struct RelayEnds {
  int source;       // the read end of the job's pipe, or the pty master
  int destination;  // ours, 1 or 2; written with blocking writes
  int tee;          // the write end of the pipe ftdiag reads into console.log
};

// Forks the relay; call it while single-threaded (fork_safety.h). Returns
// its pid, or -1 with errno set by fork. The relay keeps only these three
// descriptors (and ignores the signals meant for the job and for ftdiag:
// Ctrl-C or a SIGTERM to the process group must not cut the job's output).
// It copies until the source ends (EOF, or EIO from a pty whose job side
// closed) or the destination is gone (EPIPE: it closes the source, so the
// job gets the SIGPIPE it would get without ftdiag); a tee that fails (ftdiag
// ended) is dropped and relaying goes on. Each chunk goes to the tee first,
// so console.log has the job's last words even when the consumer is stuck.
pid_t start_relay_process(const RelayEnds& ends);

}  // namespace ftdiag::supervise
