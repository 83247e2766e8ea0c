// The probes put into the job's processes (docs/probes.md): the crash
// handler and the Python probe, found and named in the job's environment,
// and the socket on which they send markers (training phases, checkpoint
// saves) as they happen. Their stack files are read by the last gasp.
#pragma once

#include "supervise/live_source.h"

namespace ftdiag::supervise {

OpenedSource open_probes(SourceSetup& setup);

}  // namespace ftdiag::supervise
