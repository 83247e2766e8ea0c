// Evidence documents and saved reports come from users (`ftdiag judge FILE`,
// rule test cases): whatever the bytes, reading must end in a document or a
// clear refusal, and a document that reads must extract facts, be judged by
// the built-in rules and be written back without a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <variant>

#include "evidence/document_json.h"
#include "evidence/json_input.h"
#include "facts/extract.h"
#include "rules/engine.h"
#include "rules/rule_loader.h"
#include "rules/rule_paths.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = ftdiag::evidence::parse_json_input(text);
  if (auto* error = std::get_if<ftdiag::evidence::JsonInputError>(&parsed)) {
    (void)error->describe();
    return 0;
  }
  auto& j = std::get<nlohmann::json>(parsed);
  if (!j.is_object()) return 0;
  auto document = ftdiag::evidence::document_from_json(j.contains("evidence") ? j["evidence"] : j);
  if (!document) return 0;
  static const ftdiag::rules::RuleSet kRules = ftdiag::rules::load_rules(ftdiag::rules::builtin_rules_directory());
  (void)ftdiag::rules::judge(kRules.rules, ftdiag::facts::extract_facts(document.value()));
  (void)ftdiag::evidence::document_to_json(document.value()).dump();
  return 0;
}
