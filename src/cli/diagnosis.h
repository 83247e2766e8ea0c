// The pipeline shared by analyze, judge and run: evidence -> facts -> rules
// -> judgement, with the built-in rules plus any --rules directories.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/fact.h"
#include "evidence/document.h"
#include "evidence/failure_words.h"
#include "evidence/phase_table.h"
#include "parse/logs/line_events.h"
#include "rules/engine.h"
#include "rules/rule_loader.h"

namespace ftdiag::cli {

// Built-in rules and the user's. Load errors are printed to stderr; the
// result is Missing when any rule failed to load (a broken rule must be
// fixed, not silently skipped).
Fact<rules::RuleSet> load_rule_set(const std::vector<std::string>& extra_rule_dirs);

// rules/phases.json of the built-in rules directory; Missing is reported by
// the caller (phases then stay unknown).
Fact<evidence::PhaseTable> load_phase_table();

// rules/failure-words.json of the built-in rules directory; Missing is
// reported by the caller (the words are then not read).
Fact<evidence::FailureWords> load_failure_words();

// The built-in launcher, scheduler and OOM-daemon line patterns; nullopt
// (said on stderr) when they cannot be loaded.
std::optional<parse::LineEventTable> load_line_events();

// Runs every post-mortem collector that recognises something under the
// paths, with phase recognition. Missing as collectors::collect_post_mortem.
// Sources besides the paths: kernel logs named by the user, and whether this
// host's own kernel log may be read for runs recorded here.
struct EvidenceSources {
  std::vector<std::filesystem::path> kernel_logs;
  bool read_this_host = true;
  std::vector<std::filesystem::path> cores;  // --core
};
Fact<evidence::EvidenceDocument> collect_evidence(const std::vector<std::filesystem::path>& paths,
                                                  const EvidenceSources& sources = {});

// Judges the document; an `unknown` verdict also says what evidence would
// decide it (rules/evidence.json), with `analyzed` (the paths given, or the
// run folder) named in the commands that get it.
rules::Judgement judge_document(const evidence::EvidenceDocument& document, const rules::RuleSet& rules,
                                const std::string& analyzed = {});

// The facts the rules judge: extracted from the document, then derived by
// the rule set's tables.
facts::FactSet document_facts(const evidence::EvidenceDocument& document, const rules::RuleSet& rules);

}  // namespace ftdiag::cli
