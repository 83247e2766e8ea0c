#include "cli/diagnosis.h"

#include <cstdio>
#include <cstdlib>

#include "collect/host_name.h"
#include "collectors/core_dumps.h"
#include "collectors/crash_symbols.h"
#include "collectors/fault_symbols.h"
#include "collectors/post_mortem.h"
#include "collectors/registry.h"
#include "facts/extract.h"
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

void name_fault_code(evidence::EvidenceDocument& document, const std::vector<std::filesystem::path>& cores) {
  // libdw's standard debuginfo lookup downloads from debuginfod servers when
  // DEBUGINFOD_URLS is set (some distributions set it), with no time limit:
  // a report must not wait on the network. The job, if any, has ended.
  ::unsetenv("DEBUGINFOD_URLS");
  symbolize::ModuleSymbols symbols;
  collectors::add_core_dumps(document, cores, symbols, collect::host_name());
  collectors::symbolize_kernel_faults(document, symbols);
  collectors::symbolize_crashes(document, symbols);
}

Fact<evidence::EvidenceDocument> collect_evidence(const std::vector<std::filesystem::path>& paths,
                                                  const EvidenceSources& sources) {
  auto phases = load_phase_table();
  if (!phases) std::fprintf(stderr, "ftdiag: training phases unknown: %s\n", phases.missing().detail.c_str());
  const auto line_events = load_line_events();
  collectors::CollectContext context{.phases = phases ? &phases.value() : nullptr,
                                     .line_events = line_events ? &*line_events : nullptr,
                                     .kernel_logs = sources.kernel_logs,
                                     .read_this_host = sources.read_this_host};
  auto document = collectors::collect_post_mortem(paths, context, collectors::post_mortem_collectors());
  if (document) name_fault_code(document.value(), sources.cores);
  return document;
}

facts::FactSet document_facts(const evidence::EvidenceDocument& document, const rules::RuleSet& rules) {
  auto facts = facts::extract_facts(document);
  rules::apply_tables(rules.tables, facts);
  return facts;
}

rules::Judgement judge_document(const evidence::EvidenceDocument& document, const rules::RuleSet& rules) {
  return rules::judge(rules.rules, document_facts(document, rules));
}

}  // namespace ftdiag::cli
