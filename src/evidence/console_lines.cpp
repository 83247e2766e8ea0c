#include "evidence/console_lines.h"

#include <charconv>

namespace ftdiag::evidence {

Fact<ConsoleLine> parse_console_line(std::string_view line) {
  auto space = line.find(' ');
  if (space == std::string_view::npos || space + 2 > line.size()) {
    return Missing{MissingReason::unparseable, "console line without a timestamp and stream"};
  }
  ConsoleLine parsed;
  auto [end, error] = std::from_chars(line.data(), line.data() + space, parsed.time);
  if (error != std::errc() || end != line.data() + space) {
    return Missing{MissingReason::unparseable, "console line with a bad timestamp"};
  }
  parsed.stream = line[space + 1];
  if (parsed.stream != 'o' && parsed.stream != 'e' && parsed.stream != 't') {
    return Missing{MissingReason::unparseable, "console line with an unknown stream letter"};
  }
  if (space + 2 < line.size()) {
    if (line[space + 2] != ' ') return Missing{MissingReason::unparseable, "console line without a separator"};
    parsed.text = std::string(line.substr(space + 3));
  }
  return parsed;
}

}  // namespace ftdiag::evidence
