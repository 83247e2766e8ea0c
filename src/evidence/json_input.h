// Every JSON document ftdiag reads whole (evidence documents, reports, rule
// files, rule test cases, the phase table) is parsed here, with the limits a
// hostile or broken input needs: a nesting depth (nlohmann parses without
// recursion, but copying and walking the result recurse, so 100,000 nested
// arrays would overflow the stack later), and errors with a position for
// everything nlohmann refuses, including numbers beyond a double (1e999).
// Journal lines have their own reader (journal_parse.h).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

namespace ftdiag::evidence {

// Far deeper than any document ftdiag writes or any rule needs (an evidence
// document nests about 8 levels, a rule's conditions a dozen).
inline constexpr std::size_t kMaxJsonDepth = 256;

struct JsonInputOptions {
  bool allow_comments = false;  // `//` and `/* */`, as rule files allow
  std::size_t max_depth = kMaxJsonDepth;
};

struct JsonInputError {
  std::size_t line = 0;    // 1-based; 0 when only the pointer is known
  std::size_t column = 0;  // 1-based, in bytes
  std::string pointer;     // where in the document, when known ("/rules/0/when/eq"); callers may set it
  std::string message;     // "nested deeper than 256 levels", "number out of range"

  // "line 3, column 14: not valid JSON: ...", "number out of range (at /rules/0/when/eq)"
  std::string describe() const;
};

std::variant<nlohmann::json, JsonInputError> parse_json_input(std::string_view text, const JsonInputOptions& options = {});

// The first nesting deeper than max_depth, skipping strings and (when
// allowed) comments; npos when there is none. Exposed for the fuzz target.
std::size_t find_excess_nesting(std::string_view text, std::size_t max_depth, bool allow_comments);

}  // namespace ftdiag::evidence
