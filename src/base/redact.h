// Redaction of secrets in what ftdiag writes or prints: tokens of known
// shapes (base/token_shapes.h), values of names that say secret
// (base/secret_names.h), URL credentials and Authorization headers. A
// removed value becomes a marker that keeps its kind and, for a value named
// secret, a class of its length, never the exact length:
// `<redacted:hf token>`, `<redacted:secret, 8-15 chars>` (docs/redaction.md).
//
// Every function is pure and idempotent: redacting redacted text changes
// nothing (a marker is never redacted again).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/secret_names.h"

namespace ftdiag {

inline constexpr std::string_view kRedactedMarkerStart = "<redacted:";

// Whether what is written or printed passes the redaction step: `off` only
// where the user asked for the raw record (--no-redact).
enum class Redaction { on, off };

// "1-7", "8-15", "16-31", "32-63" or "64+": the length class of a marker.
std::string_view length_class(std::size_t length);

// `<redacted:KIND>`, for a token whose shape fixes its length.
std::string redaction_marker(std::string_view kind);

// The marker for a value named secret: its token kind when the whole value
// is one token of a known shape, else `<redacted:secret, CLASS chars>`.
std::string secret_value_marker(std::string_view value);

// Redacts a sequence of lines (a log's tail, a file read line by line): a
// PEM private key block that begins in one line is removed from the lines
// after it up to its END line (at most kMaxKeyLines). One redactor per
// sequence; every call continues the sequence.
class LineRedactor {
 public:
  static constexpr std::size_t kMaxKeyLines = 200;

  // Text of any length: token shapes anywhere, NAME=value, NAME = value,
  // NAME: value, "name": "value", 'name': 'value', --name value and
  // --name=value where the name says secret, scheme://user:pass@ (the
  // password), Authorization: SCHEME credentials and Bearer credentials.
  std::string text(std::string_view text);

  // An argument vector: each argument as text, and the argument after an
  // option whose name says secret (`--hub_token VALUE`).
  std::vector<std::string> argv(const std::vector<std::string>& argv);

  // An environment entry's value (or any value under a name): the marker
  // when the name says secret and the value may be one, else as text.
  std::string named_value(std::string_view name, std::string_view value);

 private:
  std::size_t key_lines_left_ = 0;  // inside a private key block while > 0
};

// One piece of text, argv or named value on its own (a fresh LineRedactor).
std::string redact_text(std::string_view text);
std::vector<std::string> redact_argv(const std::vector<std::string>& argv);
std::string redact_env_value(std::string_view name, std::string_view value);

}  // namespace ftdiag
