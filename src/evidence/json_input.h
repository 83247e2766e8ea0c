// Every JSON document ftdiag reads whole (evidence documents, reports, rule
// files, rule test cases, the phase table) is parsed here, with the limits a
// hostile or broken input needs: a nesting depth (nlohmann parses without
// recursion, but copying and walking the result recurse, so 100,000 nested
// arrays would overflow the stack later), and errors with a position for
// everything nlohmann refuses, including numbers beyond a double (1e999).
// Journal lines have their own reader (journal_parse.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

namespace ftdiag::evidence {

// Far deeper than any document ftdiag writes or any rule needs (an evidence
// document nests about 8 levels, a rule's conditions a dozen).
inline constexpr std::size_t kMaxJsonDepth = 256;

// `ftdiag judge` reads saved evidence: a document holds at most a few tens
// of thousands of records (docs/evidence.md, its bounds), some MiB. Larger
// input is refused before it is parsed: parsed JSON costs several times its
// text (16 bytes a value and more), and a 100 MB flat array would cost GiBs.
inline constexpr std::size_t kMaxJudgedDocumentBytes = std::size_t{64} << 20;
inline constexpr std::size_t kMaxJudgedDocumentValues = 4'000'000;

struct JsonInputOptions {
  bool allow_comments = false;  // `//` and `/* */`, as rule files allow
  std::size_t max_depth = kMaxJsonDepth;
  // At most this many values (arrays, objects and the values in them,
  // counted by their separators before anything is parsed).
  std::size_t max_values = SIZE_MAX;
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

// Where the value past the first max_values begins (an opening bracket or a
// comma outside strings), npos when there are no more.
std::size_t find_excess_values(std::string_view text, std::size_t max_values, bool allow_comments);

}  // namespace ftdiag::evidence
