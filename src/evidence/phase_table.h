// Recognises console lines that mark a training phase ("Saving model
// checkpoint to ...": checkpoint-save). The patterns are data
// (rules/phases.json), compiled once into one RE2 set: linear time per line,
// whatever the patterns and however long the line.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <re2/set.h>

#include "base/fact.h"


namespace ftdiag::evidence {

class PhaseTable {
 public:
  // Parses {"phases": [{"phase": NAME, "patterns": [RE2, ...]}, ...]} (JSON
  // with comments). Earlier entries win when a line matches several.
  static Fact<PhaseTable> parse(std::string_view json_text, const std::string& source_name);
  static Fact<PhaseTable> load(const std::filesystem::path& file);

  PhaseTable(PhaseTable&&) noexcept;
  PhaseTable& operator=(PhaseTable&&) noexcept;
  ~PhaseTable();

  // The phase a line marks, if any.
  std::optional<std::string_view> classify(std::string_view line) const;
  const std::vector<std::string>& phases() const { return phase_names_; }
  // Every pattern in table order, and the phase each marks: for scanners
  // that search all patterns at once (parse/text/multi_pattern.h) and then take
  // the lowest index that matched a line, as classify() does.
  const std::vector<std::string>& patterns() const { return patterns_; }
  const std::string& phase_of_pattern(std::size_t index) const { return pattern_phase_.at(index); }

 private:
  PhaseTable();
  std::unique_ptr<re2::RE2::Set> set_;
  std::vector<std::string> pattern_phase_;  // pattern index -> phase
  std::vector<std::string> patterns_;
  std::vector<std::string> phase_names_;
};

}  // namespace ftdiag::evidence
