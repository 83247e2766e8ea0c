// Generated documentation: docs/causes.md from the rules themselves, and
// docs/facts.md from the fact registry. A test keeps the committed files
// equal to what these print.
#pragma once

#include <string>
#include <vector>

#include "rules/rule.h"

namespace ftdiag::report {

std::string render_causes_markdown(const std::vector<rules::Rule>& rules);
std::string render_facts_markdown();

// One cause for a terminal (`ftdiag explain CAUSE`): what it means, how each
// rule recognises it, what to do. Empty when the cause id is unknown.
std::string render_cause_explanation(const std::string& cause, const std::vector<rules::Rule>& rules);

}  // namespace ftdiag::report
