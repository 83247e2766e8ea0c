// The job's output and keys. When ftdiag's stdout is a terminal the job gets
// a pseudo-terminal (tqdm, colours and line buffering stay as they would be)
// and typed keys are passed to it; otherwise it gets a pipe for stdout and
// one for stderr. A relay process copies each to ftdiag's own stream and
// tees it here, into console.log (relay_process.h, output_relay.h).
#pragma once

#include "supervise/live_source.h"

namespace ftdiag::supervise {

OpenedSource open_job_output(SourceSetup& setup);

}  // namespace ftdiag::supervise
