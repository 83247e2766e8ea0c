#include "collectors/log_scan_patterns.h"

#include <algorithm>

namespace ftdiag::collectors {

namespace {

constexpr auto npos = std::string_view::npos;

// The index just past the character class that opens at `open` ("[...]"):
// anchors inside a class are literal characters. A "]" first in the class
// is literal, as are escaped characters and POSIX classes ("[:alpha:]").
std::size_t class_end(std::string_view pattern, std::size_t open) {
  std::size_t i = open + 1;
  if (i < pattern.size() && pattern[i] == '^') ++i;
  if (i < pattern.size() && pattern[i] == ']') ++i;
  while (i < pattern.size() && pattern[i] != ']') {
    if (pattern[i] == '\\') {
      i += 2;
    } else if (pattern.compare(i, 2, "[:") == 0) {
      const auto close = pattern.find(":]", i + 2);
      i = close == npos ? pattern.size() : close + 2;
    } else {
      ++i;
    }
  }
  return std::min(i + 1, pattern.size());
}

// The pattern with every "^" and "$" that is an anchor (not escaped, not in
// a class, not quoted by \Q...\E) replaced.
std::string replace_anchors(std::string_view pattern, std::string_view caret, std::string_view dollar) {
  std::string out;
  out.reserve(pattern.size() + 32);
  std::size_t i = 0;
  while (i < pattern.size()) {
    const char c = pattern[i];
    std::size_t next = i + 1;
    if (c == '\\' && pattern.compare(i, 2, "\\Q") == 0) {
      const auto end = pattern.find("\\E", i + 2);
      next = end == npos ? pattern.size() : end + 2;
    } else if (c == '\\') {
      next = std::min(i + 2, pattern.size());
    } else if (c == '[') {
      next = class_end(pattern, i);
    } else if (c == '^') {
      out += caret;
      i = next;
      continue;
    } else if (c == '$') {
      out += dollar;
      i = next;
      continue;
    }
    out.append(pattern.substr(i, next - i));
    i = next;
  }
  return out;
}

}  // namespace

std::string block_form_of_event_pattern(std::string_view pattern) {
  return replace_anchors(pattern, "(?:^\\x00*)", "(?:[ \\t\\r\\x00]*$)");
}

std::string block_form_of_phase_pattern(std::string_view pattern) { return replace_anchors(pattern, "^", "(?:\\r?$)"); }

const std::vector<std::string>& kernel_line_patterns() {
  static const std::vector<std::string> patterns{
      "^\\[ *\\d+\\.\\d+\\] ",  // dmesg's printk stamp
      "\\bkernel: ",            // syslog and journalctl renderings
      "invoked oom-killer",
      "oom-kill:constraint=",
      "Killed process \\d+ \\(",
      "Out of memory: Kill",
      "Memory cgroup out of memory",
      "segfault at [0-9a-f]+ ip ",
      "traps: \\S+\\[\\d+\\] ",
      "NVRM: Xid",
      "potentially unexpected fatal signal",
  };
  return patterns;
}

}  // namespace ftdiag::collectors
