#include "cli/diagnosis.h"

#include <cstdio>

#include "evidence/job_reader.h"
#include "facts/extract.h"
#include "rules/rule_paths.h"

namespace ftdiag::cli {

Fact<rules::RuleSet> load_rule_set(const std::vector<std::string>& extra_rule_dirs) {
  rules::RuleSet set = rules::load_rules(rules::builtin_rules_directory());
  for (const auto& dir : extra_rule_dirs) rules::merge_rules(set, rules::load_rules(dir));
  if (set.ok()) return set;
  for (const auto& error : set.errors) std::fprintf(stderr, "ftdiag: rule error: %s\n", error.describe().c_str());
  return Missing{MissingReason::unparseable, "rules failed to load"};
}

Fact<evidence::PhaseTable> load_phase_table() {
  return evidence::PhaseTable::load(rules::builtin_rules_directory() / "phases.json");
}

Fact<evidence::EvidenceDocument> read_job(const std::filesystem::path& path) {
  auto phases = load_phase_table();
  if (!phases) std::fprintf(stderr, "ftdiag: training phases unknown: %s\n", phases.missing().detail.c_str());
  return evidence::read_job_directory(path, phases ? &phases.value() : nullptr);
}

rules::Judgement judge_document(const evidence::EvidenceDocument& document, const rules::RuleSet& rules) {
  return rules::judge(rules.rules, facts::extract_facts(document));
}

}  // namespace ftdiag::cli
