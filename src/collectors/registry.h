// Every collector ftdiag has, in the order they run.
#pragma once

#include <vector>

#include "collectors/collector.h"

namespace ftdiag::collectors {

// Static instances; valid for the whole program.
const std::vector<const Collector*>& all_collectors();

// Those that run on `analyze` (mode post_mortem or both).
std::vector<const Collector*> post_mortem_collectors();

}  // namespace ftdiag::collectors
