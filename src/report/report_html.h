// The report as one self-contained HTML file (`--format html --output FILE`):
// no network, no script, no external font or style. The verdict with its
// evidence and what to do, the memory timeline and the GPUs' memory as SVG
// (memory_chart_svg.h), each process's peak by role, the environment, and
// the details collapsed. Made from the redacted document.
#pragma once

#include <string>

#include "report/report_input.h"

namespace ftdiag::report {

std::string render_html(const ReportInput& input);

}  // namespace ftdiag::report
