// Where the record goes: $FTDIAG_RUN_DIR/crash.<pid>.txt. The folder is read
// from the environment at load, since getenv is not async-signal-safe (and
// the job may change its environment later).
#pragma once

namespace ftdiag::crash {

// Notes FTDIAG_RUN_DIR. False when it is unset, empty or too long: then no
// record is written, but the probe still chains.
bool init_record_file();

// Creates the record of this process, mode 0600, never over an existing file
// nor through a symlink (O_EXCL|O_NOFOLLOW). The descriptor, or -1.
// Async-signal-safe; the pid is the caller's now (after a fork it is the child's).
int create_record_file();

}  // namespace ftdiag::crash
