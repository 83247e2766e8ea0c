// Where each value of a rule file starts, by JSON pointer, so rule-loading
// errors can say "rules/oom.json:14:9": the parse layer's scan
// (parse/text/json_text_positions.h), under the names the rule loader uses.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "parse/text/json_text_positions.h"

namespace ftdiag::rules {

using TextPosition = parse::JsonTextPosition;

// Pointer ("" for the root, "/rules/0/when") -> position of the value's first
// character. Stops quietly at malformed input, keeping what it indexed.
inline std::map<std::string, TextPosition> index_json_positions(std::string_view text) {
  return parse::index_json_text_positions(text);
}

// The position of the value at `pointer`, or of the nearest enclosing value
// indexed (the root's when none is).
inline TextPosition nearest_position(const std::map<std::string, TextPosition>& positions, std::string pointer) {
  for (;; pointer = pointer.substr(0, pointer.rfind('/'))) {
    if (auto it = positions.find(pointer); it != positions.end()) return it->second;
    if (pointer.empty()) return {};
  }
}

// RFC 6901 escaping of one reference token ("a/b" -> "a~1b").
inline std::string escape_pointer_token(std::string_view token) { return parse::json_pointer_token(token); }

}  // namespace ftdiag::rules
