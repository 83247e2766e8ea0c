// Judging: rules evaluated on the facts of one job give findings, ranked by
// confidence; the verdict is the top primary finding, or `unknown` with the
// facts that were missing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "facts/fact_set.h"
#include "rules/rule.h"

namespace ftdiag::rules {

// A finding needs at least this confidence to become the verdict.
inline constexpr double kVerdictThreshold = 0.5;
// Below this, a verdict is a likely cause, not a sure one: it says what would
// make it sure, as `unknown` says what would decide it.
inline constexpr double kSureThreshold = 0.7;

struct CitedFact {
  std::string fact;
  std::string pointer;  // into the evidence document; empty for derived facts
  facts::FactValue value;
  std::string display;  // the value in its unit
};

struct WeighedEvidence {
  std::string says;  // the rule's text, filled in
  double weight = 0;
  std::vector<CitedFact> facts;
};

struct Finding {
  std::string cause;  // empty for a check that risks no particular death
  std::string rule;
  std::string title;  // the rule's title: the finding in a few words
  double confidence = 0;
  std::optional<std::string> scope;
  std::string summary;
  std::vector<CitedFact> evidence;           // the facts that made the rule fire
  std::vector<WeighedEvidence> supporting;   // support items that held
  std::vector<WeighedEvidence> contradicting;  // against items that held
  std::vector<std::string> remediation;
  std::vector<std::string> references;
  bool consequence = false;
  bool fallback = false;                     // from weak evidence: gives way to any primary finding that decides
  std::optional<Severity> severity;          // checks only: a risk, not a death
  std::optional<std::string> consequence_of;  // the rule id of the finding it follows from
  std::optional<std::string> refined_by;      // the rule id of the more specific finding that won over it
};

// A rule that could not be evaluated for want of facts: what it would
// have said, and what it missed.
struct UndecidedRule {
  std::string rule;
  std::string cause;
  std::vector<std::string> missing_facts;
};

// Evidence that would decide an `unknown` verdict, in words
// (evidence_needs.h): what it is, how to get it, the causes it would decide.
struct NeededEvidence {
  std::string id;
  std::string what;
  std::vector<std::string> how;
  std::vector<std::string> causes;         // cause ids, most rules first
  std::vector<std::string> missing_facts;  // the missing facts it provides
};

struct Verdict {
  std::string cause;
  double confidence = 0;
  std::optional<std::string> scope;
  std::string summary;
  std::string rule;                        // empty for unknown
  std::vector<std::string> missing_facts;  // what kept rules from deciding
  std::vector<std::string> notes;          // what is worth knowing beside it (signal deaths a successful job survived)
  // `unknown` because nothing failed: the job ended well, and says so.
  bool ended_normally = false;
  // For unknown, and for a verdict below kSureThreshold: the primary rules that
  // missed facts, and what would decide it (filled by needed_evidence()).
  std::vector<UndecidedRule> undecided;
  std::vector<NeededEvidence> needed;
};

struct Judgement {
  Verdict verdict;
  std::vector<Finding> findings;  // primary ones by confidence, then consequences
  std::vector<Finding> checks;    // risks the checks found, most severe first
};

Judgement judge(const std::vector<Rule>& rules, const facts::FactSet& facts);

// The most severe check finding; nullopt when no check fired.
std::optional<Severity> worst_severity(const Judgement& judgement);

}  // namespace ftdiag::rules
