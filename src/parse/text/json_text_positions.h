// Where each value of a JSON text starts, by JSON pointer ("/events/3/pattern"),
// so a loader can point at the value it refuses ("rules/log-events.json:41:18").
// nlohmann::json 3.11 keeps no positions, so this is a separate, tolerant scan
// of the same text: `//` and `/* */` comments are skipped, malformed input ends
// the scan quietly with what was indexed so far, and nesting deeper than
// kMaxIndexedDepth is not indexed (hostile input cannot exhaust the stack).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

namespace ftdiag::parse {

struct JsonTextPosition {
  std::size_t line = 1;    // 1-based
  std::size_t column = 1;  // 1-based, in bytes
};

inline constexpr int kMaxIndexedDepth = 64;

std::map<std::string, JsonTextPosition> index_json_text_positions(std::string_view text);

// RFC 6901 escaping of one reference token ("a/b" -> "a~1b").
std::string json_pointer_token(std::string_view key);

// The line and column of a byte offset (nlohmann's parse_error::byte - 1).
JsonTextPosition position_of_offset(std::string_view text, std::size_t offset);

}  // namespace ftdiag::parse
