// The report as Markdown, to paste into an issue of DeepSpeed, transformers
// or LLaMA-Factory: the verdict in a sentence with its id and confidence, the
// evidence as a table, what to do, the memory timeline, the environment as
// `collect_env` lists it (versions, driver, GPUs, RAM), and the details
// (processes, other causes, the console's last lines) collapsed. It is made
// from the redacted document, like every output.
#pragma once

#include <string>
#include <vector>

#include "report/report_input.h"

namespace ftdiag::report {


std::string render_markdown(const ReportInput& input);

// Text safe in Markdown prose: HTML's < > & written as entities (a Python
// frame's "<module>" is not a tag), no line breaks.
std::string markdown_text(std::string_view text);
// The same for a table cell: | escaped too.
std::string markdown_cell(std::string_view text);
// A code span, in prose or a table cell: the text as written (a command's
// quotes and angle brackets), a backtick made a quote, a pipe escaped.
std::string markdown_code(std::string_view text);

}  // namespace ftdiag::report
