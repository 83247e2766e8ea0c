#include "supervise/fork_safety.h"

#include <unistd.h>

#include <fmt/format.h>

#include "collect/host/proc_status.h"

namespace ftdiag::supervise {

int count_own_threads() {
  auto status = collect::read_proc_status(collect::SystemRoots{}, static_cast<int>(::getpid()));
  return status && status->threads ? *status->threads : -1;
}

std::optional<std::string> unsafe_to_fork() {
  const int threads = count_own_threads();
  if (threads <= 1) return std::nullopt;
  return fmt::format("{} threads exist; ftdiag forks only while it has one (a bug in ftdiag)", threads);
}

}  // namespace ftdiag::supervise
