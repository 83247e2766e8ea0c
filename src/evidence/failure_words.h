// Words that name a failure in any program's language: "out of memory",
// "segmentation fault", "bus error", "driver version is insufficient",
// "undefined symbol", written in any case, by any framework. The line-event
// table (rules/log-events.json) knows exact wordings from the frameworks'
// sources, and each new framework, version or paste brings wordings it has
// not read; these words are what is left to read such a line by. They are
// weak evidence: rules read them only when no recogniser explains the death
// ("role": "fallback", docs/rules.md).
//
// The words are data (rules/failure-words.json, docs/failure-words.md),
// compiled once; read only on the last lines of each plain log, so their
// cost does not grow with the log.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <re2/re2.h>
#include <re2/set.h>

#include "base/fact.h"

namespace ftdiag::evidence {

class FailureWords {
 public:
  // Parses {"kind": "failure-words", "words": [{"word": NAME, "patterns":
  // [RE2, ...], "unless": [RE2, ...], "what": TEXT}, ...]} (JSON with
  // comments). Patterns are matched without regard to case. Earlier entries
  // win when a line holds the words of several.
  static Fact<FailureWords> parse(std::string_view json_text, const std::string& source_name);
  static Fact<FailureWords> load(const std::filesystem::path& file);

  FailureWords(FailureWords&&) noexcept;
  FailureWords& operator=(FailureWords&&) noexcept;
  ~FailureWords();

  // The word a line holds: the first entry one of whose patterns matches
  // and none of whose `unless` patterns does. Linear in the line's length:
  // every pattern of every word is searched at once (one RE2::Set), and a
  // line with none of them, almost every line, costs that one pass.
  std::optional<std::string_view> classify(std::string_view line) const;

  // Every word, in table order, and what each says in a user's terms.
  struct Word {
    std::string name;
    std::string what;
  };
  const std::vector<Word>& words() const { return words_; }

 private:
  FailureWords();
  struct Entry {
    std::vector<std::unique_ptr<re2::RE2>> unless;
  };
  std::vector<Word> words_;
  std::vector<Entry> entries_;  // one per word
  std::unique_ptr<re2::RE2::Set> patterns_;  // every word's patterns
  std::vector<std::size_t> word_of_pattern_;  // pattern index in the set -> word index
};

}  // namespace ftdiag::evidence
