#include "base/token_shapes.h"

#include "base/ascii.h"

#include <array>
#include <cctype>

namespace ftdiag {

namespace {

using ascii::is_alnum;
using ascii::run_length;

bool is_token_char(char c) { return is_alnum(c) || c == '_' || c == '-'; }
bool is_base64url(char c) { return is_alnum(c) || c == '_' || c == '-' || c == '='; }
bool is_upper_or_digit(char c) { return std::isupper(static_cast<unsigned char>(c)) != 0 || std::isdigit(static_cast<unsigned char>(c)) != 0; }


// A prefix and the body that follows it. Bodies of letters and digits only
// where the issuer's tokens are so (hf_, ghp_): `hf_transformers_cache` is
// a name, not a token.
struct Shape {
  std::string_view prefix;
  std::string_view kind;
  std::size_t min_body;
  bool (*body_char)(char);
};

// Longer prefixes first, so sk-proj- is named before sk-.
const std::array<Shape, 16> kShapes{{
    {"github_pat_", "github token", 20, is_token_char},
    {"sk-proj-", "openai key", 20, is_token_char},
    {"sk-ant-", "anthropic key", 20, is_token_char},
    {"sk-", "openai key", 20, is_token_char},
    {"hf_", "hf token", 30, is_alnum},
    {"ghp_", "github token", 30, is_alnum},
    {"gho_", "github token", 30, is_alnum},
    {"ghu_", "github token", 30, is_alnum},
    {"ghs_", "github token", 30, is_alnum},
    {"ghr_", "github token", 30, is_alnum},
    {"xoxa-", "slack token", 10, is_token_char},
    {"xoxb-", "slack token", 10, is_token_char},
    {"xoxp-", "slack token", 10, is_token_char},
    {"xoxr-", "slack token", 10, is_token_char},
    {"xoxs-", "slack token", 10, is_token_char},
    {"AIza", "google api key", 35, is_token_char},
}};

std::optional<TokenShape> aws_key_id_at(std::string_view rest) {
  if (rest.substr(0, 4) != "AKIA" && rest.substr(0, 4) != "ASIA") return std::nullopt;
  if (rest.size() < 20 || run_length(rest, 4, is_upper_or_digit) != 16) return std::nullopt;
  if (rest.size() > 20 && is_alnum(rest[20])) return std::nullopt;
  return TokenShape{20, "aws key id"};
}

// header.payload.signature, each base64url, header and payload JSON
// objects ("eyJ" is base64 of `{"`).
std::optional<TokenShape> jwt_at(std::string_view text, std::size_t at) {
  if (text.substr(at, 3) != "eyJ") return std::nullopt;
  const std::size_t header = run_length(text, at, is_base64url);
  std::size_t dot = at + header;
  if (dot >= text.size() || text[dot] != '.' || text.substr(dot + 1, 3) != "eyJ") return std::nullopt;
  dot += 1 + run_length(text, dot + 1, is_base64url);
  if (dot >= text.size() || text[dot] != '.') return std::nullopt;
  const std::size_t signature = run_length(text, dot + 1, is_base64url);
  if (signature == 0) return std::nullopt;
  return TokenShape{dot + 1 + signature - at, "jwt"};
}

}  // namespace

std::optional<TokenShape> token_shape_at(std::string_view text, std::size_t at) {
  const std::string_view rest = text.substr(at);
  for (const auto& shape : kShapes) {
    if (rest.substr(0, shape.prefix.size()) != shape.prefix) continue;
    const std::size_t body = run_length(rest, shape.prefix.size(), shape.body_char);
    // A body that runs on into more word characters is part of a longer word.
    const std::size_t end = shape.prefix.size() + body;
    if (body >= shape.min_body && (end == rest.size() || !is_alnum(rest[end]))) {
      return TokenShape{shape.prefix.size() + body, shape.kind};
    }
  }
  if (auto aws = aws_key_id_at(rest)) return aws;
  return jwt_at(text, at);
}

std::optional<PrivateKeyBlock> private_key_block_at(std::string_view text, std::size_t at) {
  if (text.substr(at, 11) != "-----BEGIN ") return std::nullopt;
  const std::size_t label_end = text.find("-----", at + 11);
  if (label_end == std::string_view::npos) return std::nullopt;
  const std::string_view label = text.substr(at + 11, label_end - at - 11);
  if (label.find("PRIVATE KEY") == std::string_view::npos || label.find('\n') != std::string_view::npos) return std::nullopt;
  const std::string_view after = text.substr(label_end + 5);
  if (auto end = private_key_end_in(after)) return PrivateKeyBlock{label_end + 5 + *end - at, true};
  return PrivateKeyBlock{text.size() - at, false};
}

std::optional<std::size_t> private_key_end_in(std::string_view text) {
  const std::size_t end = text.find("-----END ");
  if (end == std::string_view::npos) return std::nullopt;
  const std::size_t dashes = text.find("-----", end + 9);
  // An END line cut short: the block runs to the end of the text.
  if (dashes == std::string_view::npos) return text.size();
  return dashes + 5;
}

std::optional<std::string_view> whole_token_kind(std::string_view value) {
  auto shape = token_shape_at(value, 0);
  if (shape && shape->length == value.size()) return shape->kind;
  return std::nullopt;
}

}  // namespace ftdiag
