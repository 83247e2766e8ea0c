#include "cli/diagnosis.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "collectors/post_mortem.h"
#include "facts/extract.h"
#include "facts/incident.h"
#include "rules/causes.h"
#include "rules/evidence_needs.h"
#include "rules/rule_paths.h"

namespace ftdiag::cli {

Fact<rules::RuleSet> load_rule_set(const std::vector<std::string>& extra_rule_dirs) {
  rules::RuleSet set = rules::load_rules(rules::builtin_rules_directory());
  for (const auto& dir : extra_rule_dirs) rules::merge_rules(set, rules::load_rules(dir));
  for (auto& error : rules::check_refinements(set.rules)) set.errors.push_back(std::move(error));
  if (set.ok()) return set;
  for (const auto& error : set.errors) std::fprintf(stderr, "ftdiag: rule error: %s\n", error.describe().c_str());
  return Missing{MissingReason::unparseable, "rules failed to load"};
}

Fact<evidence::PhaseTable> load_phase_table() {
  return evidence::PhaseTable::load(rules::builtin_rules_directory() / "phases.json");
}

std::optional<parse::LineEventTable> load_line_events() {
  auto table = parse::LineEventTable::load(rules::builtin_rules_directory() / "log-events.json");
  if (auto* error = std::get_if<std::string>(&table)) {
    std::fprintf(stderr, "ftdiag: launcher and scheduler lines not recognised: %s\n", error->c_str());
    return std::nullopt;
  }
  return std::move(std::get<parse::LineEventTable>(table));
}

Fact<evidence::FailureWords> load_failure_words() {
  return evidence::FailureWords::load(rules::builtin_rules_directory() / "failure-words.json");
}

Fact<evidence::EvidenceDocument> collect_evidence(const std::vector<std::filesystem::path>& paths,
                                                  const EvidenceSources& sources) {
  auto phases = load_phase_table();
  if (!phases) std::fprintf(stderr, "ftdiag: training phases unknown: %s\n", phases.missing().detail.c_str());
  const auto line_events = load_line_events();
  const auto words = load_failure_words();
  if (!words) std::fprintf(stderr, "ftdiag: failure words not read: %s\n", words.missing().detail.c_str());
  collectors::CollectContext context{.phases = phases ? &phases.value() : nullptr,
                                     .line_events = line_events ? &*line_events : nullptr,
                                     .failure_words = words ? &words.value() : nullptr,
                                     .kernel_logs = sources.kernel_logs,
                                     .cores = sources.cores,
                                     .read_this_host = sources.read_this_host};
  // libdw's standard debuginfo lookup downloads from debuginfod servers when
  // DEBUGINFOD_URLS is set (some distributions set it), with no time limit:
  // a report must not wait on the network. The job, if any, has ended.
  ::unsetenv("DEBUGINFOD_URLS");
  return collectors::collect_post_mortem(paths, context);
}

facts::FactSet document_facts(const evidence::EvidenceDocument& document, const rules::RuleSet& rules) {
  auto facts = facts::extract_facts(document);
  rules::apply_tables(rules.tables, facts);
  return facts;
}

namespace {

// The node an `unknown` verdict's evidence is to be got on: the death's, or
// the only node the evidence names.
std::string node_of_death(const evidence::EvidenceDocument& document) {
  const auto incident = facts::find_incident(document);
  if (incident && incident->run && incident->run->host < document.hosts.size()) {
    return document.hosts[incident->run->host].name;
  }
  std::string only;
  for (const auto& host : document.hosts) {
    if (host.name.empty()) continue;
    if (!only.empty() && only != host.name) return {};
    only = host.name;
  }
  return only;
}

}  // namespace

rules::Judgement judge_document(const evidence::EvidenceDocument& document, const rules::RuleSet& rules,
                                const std::string& analyzed) {
  auto judgement = rules::judge(rules.rules, document_facts(document, rules));
  auto& verdict = judgement.verdict;
  if (verdict.cause == rules::kUnknownCause || verdict.confidence < rules::kSureThreshold) {
    const bool recorded = std::any_of(document.hosts.begin(), document.hosts.end(), [](const auto& host) { return !host.runs.empty(); });
    verdict.needed = rules::needed_evidence(verdict.undecided, rules.evidence, {node_of_death(document), analyzed, recorded});
  }
  return judgement;
}

}  // namespace ftdiag::cli
