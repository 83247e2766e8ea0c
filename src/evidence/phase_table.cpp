#include "evidence/phase_table.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <re2/re2.h>
#include <re2/set.h>

#include "base/read_file.h"
#include "evidence/json_input.h"

namespace ftdiag::evidence {

PhaseTable::PhaseTable() = default;
PhaseTable::PhaseTable(PhaseTable&&) noexcept = default;
PhaseTable& PhaseTable::operator=(PhaseTable&&) noexcept = default;
PhaseTable::~PhaseTable() = default;

Fact<PhaseTable> PhaseTable::parse(std::string_view json_text, const std::string& source_name) {
  auto fail = [&](const std::string& why) {
    return Missing{MissingReason::unparseable, fmt::format("{}: {}", source_name, why)};
  };
  auto parsed = parse_json_input(json_text, {.allow_comments = true});
  if (auto* failure = std::get_if<JsonInputError>(&parsed)) return fail(failure->describe());
  auto j = std::move(std::get<nlohmann::json>(parsed));
  if (!j.is_object() || !j.contains("phases") || !j["phases"].is_array()) return fail("expected {\"phases\": [...]}");
  if (j.contains("kind") && j["kind"] != "phases") return fail("this table's kind is \"phases\"");
  RE2::Options options;
  options.set_log_errors(false);
  PhaseTable table;
  table.set_ = std::make_unique<RE2::Set>(options, RE2::UNANCHORED);
  for (std::size_t i = 0; i < j["phases"].size(); ++i) {
    const auto& entry = j["phases"][i];
    if (!entry.is_object() || !entry.contains("phase") || !entry["phase"].is_string() ||
        !entry.contains("patterns") || !entry["patterns"].is_array()) {
      return fail(fmt::format("/phases/{}: needs \"phase\" (string) and \"patterns\" (array)", i));
    }
    const auto name = entry["phase"].get<std::string>();
    if (std::find(table.phase_names_.begin(), table.phase_names_.end(), name) == table.phase_names_.end()) {
      table.phase_names_.push_back(name);
    }
    for (std::size_t k = 0; k < entry["patterns"].size(); ++k) {
      const auto& pattern = entry["patterns"][k];
      if (!pattern.is_string()) return fail(fmt::format("/phases/{}/patterns/{}: not a string", i, k));
      std::string error;
      if (table.set_->Add(pattern.get<std::string>(), &error) < 0) {
        return fail(fmt::format("/phases/{}/patterns/{}: bad regular expression: {}", i, k, error));
      }
      table.pattern_phase_.push_back(name);
      table.patterns_.push_back(pattern.get<std::string>());
    }
  }
  if (!table.set_->Compile()) return fail("the patterns are too large to compile");
  return table;
}

Fact<PhaseTable> PhaseTable::load(const std::filesystem::path& file) {
  auto text = read_small_file(file, 4 << 20);
  if (!text) return text.missing();
  return parse(text.value(), file.string());
}

std::optional<std::string_view> PhaseTable::classify(std::string_view line) const {
  if (!set_ || pattern_phase_.empty()) return std::nullopt;
  // Most lines mark no phase: asking only whether any pattern matches skips
  // building the list of matches (about half the cost of a short line).
  if (!set_->Match(line, nullptr)) return std::nullopt;
  std::vector<int> matches;
  if (!set_->Match(line, &matches) || matches.empty()) return std::nullopt;
  return std::string_view(pattern_phase_[static_cast<std::size_t>(*std::min_element(matches.begin(), matches.end()))]);
}

}  // namespace ftdiag::evidence
