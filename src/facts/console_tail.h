// The console.tail fact: the last lines of a job's console, from the run's
// own console log or from a plain log found beside it.
#pragma once

#include <cstddef>
#include <string>

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

}  // namespace ftdiag::facts
