// The dynamic loader's variables of the process, LD_LIBRARY_PATH and
// LD_PRELOAD, as they were when it started (which is when the loader read
// them): which libraries a crashed process loaded, and from where, is the
// question an ABI mismatch raises. Copied at load, since getenv is not
// async-signal-safe; written into the crash record as "env NAME VALUE".
#pragma once

#include "crash/record_writer.h"

namespace ftdiag::crash {

// At load, outside any handler.
void init_loader_environment();

// Async-signal-safe: only copies made at load are written.
void write_loader_environment(RecordWriter& out);

}  // namespace ftdiag::crash
