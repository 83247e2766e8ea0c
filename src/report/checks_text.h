// The checks' findings as text: one line per risk with its severity, then
// what to do. `ftdiag preflight` prints them whole; `run` and `analyze` list
// the errors and warnings beside the verdict.
#pragma once

#include <string>
#include <vector>

#include "report/text_layout.h"
#include "rules/engine.h"

namespace ftdiag::report {

// "ftdiag preflight: 1 error, 1 warning, 2 notes" and every finding with
// its fixes; "nothing found" when none fired.
std::string render_checks(const std::vector<rules::Finding>& checks, bool details = true);

// Each error or warning with its first fix, for below a verdict (warnings
// only with style.verbose); empty when none.
std::string render_environment_risks(const std::vector<rules::Finding>& checks, const TextStyle& style);

}  // namespace ftdiag::report
