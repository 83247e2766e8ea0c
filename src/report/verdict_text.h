// The verdict for a terminal: what happened in a sentence, then the cause's
// id and confidence, the numbers, what to do and what could not be checked.
// With style.verbose: the evidence with where each fact came from, every
// supporting and contradicting item, and the other causes considered.
#pragma once

#include <string>

#include "report/text_layout.h"
#include "rules/engine.h"

namespace ftdiag::report {

// The headline and the lines under it, wrapped to style.width.
std::string render_verdict(const rules::Judgement& judgement, const TextStyle& style);

// The tail of the verdict: the other causes considered and the consequences
// (verbose), and the risks of the job's environment.
std::string render_verdict_context(const rules::Judgement& judgement, const TextStyle& style);

// "95%".
std::string confidence_percent(double confidence);

// The finding the verdict came from; null for `unknown` and a job that ended well.
const rules::Finding* verdict_finding(const rules::Judgement& judgement);

// "The job ran out of host memory while saving a checkpoint, at the memory
// limit of its container or allocation": the cause in words.
std::string verdict_headline(const rules::Verdict& verdict);

}  // namespace ftdiag::report
