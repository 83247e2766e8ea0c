#include "supervise/errno_remedy.h"

#include <cerrno>
#include <cstring>

namespace ftdiag::supervise {

std::string errno_with_remedy(int error) {
  std::string text = std::strerror(error);
  if (error == EMFILE || error == ENFILE) return text + " (raise the limit on open files: ulimit -n)";
  // fork(2): RLIMIT_NPROC, a pids cgroup's limit, or the system's threads-max.
  if (error == EAGAIN) return text + " (the limit on processes was reached: ulimit -u, or a pids cgroup's pids.max)";
  if (error == ENOMEM) return text + " (out of memory)";
  return text;
}

}  // namespace ftdiag::supervise
