// Environment facts from what reports stated (the host's `reported`:
// collect_env, ds_report, nvidia-smi, pip lists found with the evidence),
// for the parts of a host that were not probed: a post-mortem of a folder
// ftdiag never ran in has only these. The GPU facts come from reports when
// the GPU probe gave no answer, torch's and its extensions' when the Python
// installation was not read, the host's memory when its settings were not
// read; a fact already set by a probe is never replaced. Each fact's
// pointer is the reported value's ("/hosts/0/reported/3/value"), and
// environment.source says whether a probe, a report or both spoke.
#pragma once

#include <string>

#include "evidence/document.h"
#include "facts/fact_set.h"

namespace ftdiag::facts {

// `at` is the host's pointer ("/hosts/0").
void reported_environment_facts(const evidence::HostEvidence& host, const std::string& at, FactSet& facts);

}  // namespace ftdiag::facts
