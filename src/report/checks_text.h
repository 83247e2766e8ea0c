// The checks' findings as text: one line per risk with its severity, then
// what to do. `ftdiag preflight` prints them whole; `run` and `analyze` list
// the errors and warnings beside the verdict.
#pragma once

#include <string>
#include <vector>

#include "rules/engine.h"

namespace ftdiag::report {

// "ftdiag preflight: 1 error, 1 warning, 2 notes" and every finding with
// its fixes; "nothing found" when none fired.
std::string render_checks(const std::vector<rules::Finding>& checks, bool details = true);

// One line per error or warning, for below a verdict; empty when none.
std::string render_environment_risks(const std::vector<rules::Finding>& checks);

}  // namespace ftdiag::report
