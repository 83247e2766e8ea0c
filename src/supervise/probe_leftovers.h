// The probes open their files as a process starts (faulthandler needs a
// descriptor before the fault), so every probed process leaves a
// python-faults and a python-stacks file, empty unless it faulted or was
// asked for its stacks. At the end of a run those that hold nothing are
// removed: 5,000 DataLoader forks otherwise leave 10,000 empty files.
#pragma once

#include <cstddef>

namespace ftdiag::supervise {

// Removes, in the run folder open as `dir_fd`, the probes' per-process files
// (python-faults.<pid>.txt, python-stacks.<pid>.txt) that are empty regular
// files of a process that no longer runs (one still running may yet write
// into its file). Links and anything else are left alone. Returns how many
// were removed.
std::size_t remove_empty_probe_files(int dir_fd);

}  // namespace ftdiag::supervise
