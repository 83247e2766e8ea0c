// Userspace OOM killers running on the node (systemd-oomd, earlyoom, oomd,
// nohang): they SIGKILL under memory pressure, before the kernel would, and
// leave no kernel OOM record.
#pragma once

#include <string>
#include <vector>

#include "base/fact.h"
#include "collect/system_roots.h"

namespace ftdiag::collect {

// Whether a process name is one of the known userspace OOM killers.
bool is_oom_daemon(std::string_view comm);

// The names of those running now (each once, sorted); empty when none.
Fact<std::vector<std::string>> running_oom_daemons(const SystemRoots& roots);

}  // namespace ftdiag::collect
