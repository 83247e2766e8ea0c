#include "parse/logs/training_progress.h"

#include <charconv>

#include <re2/re2.h>

namespace ftdiag::parse {

namespace {

// tqdm's "{desc}: {percent}%|{bar}| {n}/{total} [{elapsed}<": the
// description, when there is one, and the counter.
const re2::RE2& bar_pattern() {
  static const re2::RE2 re(R"((?:([A-Za-z][^:|\]\r]{0,80}): *)?\d{1,3}%\|[^|]{0,400}\| *(\d{1,12})/\d{1,12} \[[\d:]+<)");
  return re;
}

const re2::RE2& training_description() {
  static const re2::RE2 re(R"((?i)train|epoch|step|iter|batch)");
  return re;
}

const re2::RE2& step_pattern() {
  static const re2::RE2 re(R"((?i)\bstep(?:=| ?: ?| )(\d{1,12})\b)");
  return re;
}

std::optional<std::uint64_t> number(const re2::StringPiece& digits) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

// A redrawn bar keeps every state it drew on one line: the last counts.
std::optional<std::uint64_t> last_bar(re2::StringPiece rest) {
  std::optional<std::uint64_t> last;
  re2::StringPiece description, digits;
  while (re2::RE2::FindAndConsume(&rest, bar_pattern(), &description, &digits)) {
    if (description.empty() || re2::RE2::PartialMatch(description, training_description())) {
      last = number(digits);
    } else {
      last.reset();
    }
  }
  return last;
}

}  // namespace

std::optional<std::uint64_t> training_steps_done(std::string_view line) {
  const re2::StringPiece text(line.data(), line.size());
  if (auto bar = last_bar(text)) return bar;
  re2::StringPiece digits;
  if (re2::RE2::PartialMatch(text, step_pattern(), &digits)) return number(digits);
  return std::nullopt;
}

}  // namespace ftdiag::parse
