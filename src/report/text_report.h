// The whole text report of `ftdiag analyze` and of `ftdiag run` at the job's
// end: the verdict first, then the run that matters (its end, the first
// death and its role, the memory timeline, a crash), what could not be
// read, the risks of the environment, and where to read more. At 80 columns
// a verdict with its proof and its fix fits a screen; --verbose adds every
// run, every death, the evidence's sources and the causes considered.
#pragma once

#include <string>
#include <vector>

#include "evidence/document.h"
#include "report/text_layout.h"
#include "rules/engine.h"

namespace ftdiag::report {

struct RunPlace {
  evidence::RunRef ref;
  std::string path;  // where its folder is, for `ftdiag analyze PATH`
};

struct TextReportInput {
  const evidence::EvidenceDocument& document;
  const rules::Judgement& judgement;
  std::vector<RunPlace> runs;             // in document order
  std::vector<std::string> not_read;      // what a collector could not read, and why (--verbose)
  std::vector<std::string> problems;      // what the user named and could not be used (always said)
  std::string more_command;               // "ftdiag analyze DIR --verbose"; empty: not said
};

std::string render_text_report(const TextReportInput& input, const TextStyle& style);

}  // namespace ftdiag::report
