// What the Markdown and HTML reports are made from: the redacted document,
// the judgement, the facts the rules saw, where each run's folder is, and
// the command that made the report (named in its footer).
#pragma once

#include <string>
#include <vector>

#include "evidence/document.h"
#include "facts/fact_set.h"
#include "report/text_report.h"
#include "rules/engine.h"

namespace ftdiag::report {

struct ReportInput {
  const evidence::EvidenceDocument& document;
  const rules::Judgement& judgement;
  const facts::FactSet& facts;
  std::vector<RunPlace> runs;  // in document order
  std::string command;         // "ftdiag analyze DIR --format markdown"
};

}  // namespace ftdiag::report
