// Where each value of a JSON text starts, by JSON pointer, so rule-loading
// errors can say "rules/oom.json:14:9". nlohmann::json (3.11) keeps no
// positions, so this is a separate, tolerant scan of the same text. Comments
// (// and /* */) are skipped as the rule loader allows them.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace ftdiag::rules {

struct TextPosition {
  std::size_t line = 1;    // 1-based
  std::size_t column = 1;  // 1-based, in bytes
};

// Pointer ("" for the root, "/rules/0/when") -> position of the value's first
// character. Stops quietly at malformed input, keeping what it indexed.
std::map<std::string, TextPosition> index_json_positions(std::string_view text);

// RFC 6901 escaping of one reference token ("a/b" -> "a~1b").
std::string escape_pointer_token(std::string_view token);

}  // namespace ftdiag::rules
