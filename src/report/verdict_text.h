// The verdict for a terminal: the cause, the numbers, the evidence for and
// against, and what to do.
#pragma once

#include <string>

#include "rules/engine.h"

namespace ftdiag::report {

std::string render_verdict(const rules::Judgement& judgement);

}  // namespace ftdiag::report
