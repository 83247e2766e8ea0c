// Secrets recognisable by their shape alone, wherever they stand in text:
// Hugging Face, OpenAI, GitHub, Slack and Google API tokens, AWS access key
// ids, JWTs and PEM private key blocks (docs/redaction.md lists the shapes).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace ftdiag {

struct TokenShape {
  std::size_t length = 0;  // bytes of text it covers
  std::string_view kind;   // "hf token", "openai key", "github token", ...
};

// The token of a known shape that starts at `at`, or nullopt. The caller
// checks that `at` starts a word (a shape inside a longer word, such as
// `ahf_...`, is none).
std::optional<TokenShape> token_shape_at(std::string_view text, std::size_t at);

// A PEM private key block starting at `at` ("-----BEGIN ... PRIVATE
// KEY-----"): up to the end of its END line's dashes, or the whole rest of
// the text when the text holds no END (`closed` then false).
struct PrivateKeyBlock {
  std::size_t length = 0;
  bool closed = false;
};
std::optional<PrivateKeyBlock> private_key_block_at(std::string_view text, std::size_t at);

// Where a private key block that began in an earlier line ends in this one:
// the length up to the END line's closing dashes, or nullopt when this line
// holds no END (the whole line is inside the block).
std::optional<std::size_t> private_key_end_in(std::string_view text);

// True when the whole value is one token of a known shape.
std::optional<std::string_view> whole_token_kind(std::string_view value);

}  // namespace ftdiag
