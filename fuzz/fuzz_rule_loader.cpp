// Rule files come from users too (`--rules DIR`): whatever the bytes, loading
// must end in rules or load errors, and judging what loaded must not crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "facts/fact_set.h"
#include "facts/registry.h"
#include "rules/engine.h"
#include "rules/rule_loader.h"

namespace {

// Every registered fact with a plain value of its type, so that comparisons,
// patterns and templates run on values and not only on missing facts.
ftdiag::facts::FactSet plain_facts() {
  using ftdiag::facts::FactType;
  ftdiag::facts::FactSet facts;
  for (const auto& spec : ftdiag::facts::fact_registry()) {
    const std::string name(spec.name);
    switch (spec.type) {
      case FactType::boolean: facts.set(name, true); break;
      case FactType::integer: facts.set(name, std::int64_t{9}); break;
      case FactType::number: facts.set(name, 0.95); break;
      case FactType::string: facts.set(name, std::string("Saving model checkpoint\nKilled")); break;
    }
  }
  return facts;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ftdiag::rules::RuleSet set;
  ftdiag::rules::parse_rule_file(text, "fuzz.json", set);
  for (const auto& error : set.errors) (void)error.describe();
  for (const auto& rule : set.rules) (void)ftdiag::rules::describe(rule.when);
  static const ftdiag::facts::FactSet kEmpty;
  static const ftdiag::facts::FactSet kPlain = plain_facts();
  (void)ftdiag::rules::judge(set.rules, kEmpty);
  (void)ftdiag::rules::judge(set.rules, kPlain);
  // The same bytes as a table file (kind "table"): parsed, then applied.
  std::vector<ftdiag::rules::DataTable> tables;
  std::vector<ftdiag::rules::LoadError> errors;
  ftdiag::rules::parse_table_file(text, "fuzz.json", tables, errors);
  for (const auto& error : errors) (void)error.describe();
  ftdiag::facts::FactSet empty = kEmpty, plain = kPlain;
  ftdiag::rules::apply_tables(tables, empty);
  ftdiag::rules::apply_tables(tables, plain);
  return 0;
}
