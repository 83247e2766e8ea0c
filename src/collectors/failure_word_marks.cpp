#include "collectors/failure_word_marks.h"

#include "evidence/failure_words.h"

namespace ftdiag::collectors {

void mark_failure_words(evidence::EvidenceDocument& document, const evidence::FailureWords& words) {
  for (auto& host : document.hosts) {
    for (auto& run : host.runs) {
      for (auto& line : run.console.tail) {
        const auto word = words.classify(line.text);
        line.word = word ? std::optional<std::string>(std::string(*word)) : std::nullopt;
      }
    }
  }
}

}  // namespace ftdiag::collectors
