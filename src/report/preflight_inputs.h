// What `ftdiag preflight` read and where, before its findings, as
// `collect_env` and `ds_report` list their versions: the interpreter and how
// it was found, torch and its CUDA build, DeepSpeed, the driver and the GPUs,
// the host's memory, /dev/shm and limits, the configs, and what the memory
// estimate assumed (a CPU-only torch makes it count training on the CPU,
// which is why its figures change with the interpreter). A value that could
// not be read says why.
#pragma once

#include <string>

#include "facts/fact_set.h"
#include "report/text_layout.h"

namespace ftdiag::report {

std::string render_preflight_inputs(const facts::FactSet& facts, const TextStyle& style);

}  // namespace ftdiag::report
