// The console.tail fact: the last lines of a job's console, from the run's
// own console log or from a plain log found beside it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ftdiag::facts {

// Lines of the console's tail that console.tail holds: enough for a traceback
// and the lines before it, few enough to read in a report.
inline constexpr std::size_t kTailLinesAsFact = 60;

// The last kTailLinesAsFact lines of `tail` (each with a `text`), one per line.
template <class Lines>
std::string console_tail_text(const Lines& tail) {
  std::string text;
  for (std::size_t i = tail.size() > kTailLinesAsFact ? tail.size() - kTailLinesAsFact : 0; i < tail.size(); ++i) {
    text += tail[i].text;
    text += '\n';
  }
  return text;
}

// A line as a sentence quotes it: its first 160 bytes (a launcher's line may
// carry the whole argv).
inline std::string line_excerpt(std::string_view text) {
  constexpr std::size_t kMax = 160;
  return text.size() <= kMax ? std::string(text) : std::string(text.substr(0, kMax)) + "...";
}

// The first of the last lines that holds a failure word (rules/failure-words.json,
// marked on a plain log's and a run console's tails alike), if any.
template <class Lines>
std::optional<std::size_t> first_worded_line(const Lines& tail) {
  for (std::size_t i = 0; i < tail.size(); ++i) {
    if (tail[i].word) return i;
  }
  return std::nullopt;
}

}  // namespace ftdiag::facts
