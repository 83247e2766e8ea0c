#include "base/redact.h"

#include <fmt/format.h>

#include <array>
#include <cctype>

namespace ftdiag {

namespace {

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool is_token_char(char c) { return is_alnum(c) || c == '_' || c == '-'; }
bool is_name_char(char c) { return is_alnum(c) || c == '_' || c == '-' || c == '.'; }

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

// Length of the run of characters satisfying `pred` starting at `at`.
template <class Pred>
std::size_t run_length(std::string_view text, std::size_t at, Pred pred) {
  std::size_t n = 0;
  while (at + n < text.size() && pred(text[at + n])) ++n;
  return n;
}

struct Shape {
  std::string_view prefix;
  std::string_view kind;
  std::size_t min_body;  // characters after the prefix
};

// Longer prefixes first, so sk-proj- is named before sk-.
constexpr std::array<Shape, 14> kShapes{{
    {"github_pat_", "github token", 20},
    {"sk-proj-", "openai key", 20},
    {"sk-", "openai key", 20},
    {"hf_", "hf token", 30},
    {"ghp_", "github token", 30},
    {"gho_", "github token", 30},
    {"ghu_", "github token", 30},
    {"ghs_", "github token", 30},
    {"ghr_", "github token", 30},
    {"xoxa-", "slack token", 10},
    {"xoxb-", "slack token", 10},
    {"xoxp-", "slack token", 10},
    {"xoxr-", "slack token", 10},
    {"xoxs-", "slack token", 10},
}};

// A known token shape starting at `at` (at a word start): its length and kind.
std::size_t shape_at(std::string_view text, std::size_t at, std::string_view& kind) {
  const std::string_view rest = text.substr(at);
  for (const auto& shape : kShapes) {
    if (rest.substr(0, shape.prefix.size()) != shape.prefix) continue;
    const std::size_t body = run_length(text, at + shape.prefix.size(), is_token_char);
    if (body >= shape.min_body) {
      kind = shape.kind;
      return shape.prefix.size() + body;
    }
  }
  if ((rest.substr(0, 4) == "AKIA" || rest.substr(0, 4) == "ASIA") && rest.size() >= 20) {
    bool ok = true;
    for (std::size_t i = 4; i < 20; ++i) ok = ok && (std::isupper(static_cast<unsigned char>(rest[i])) || std::isdigit(static_cast<unsigned char>(rest[i])));
    if (ok && (rest.size() == 20 || !is_alnum(rest[20]))) {
      kind = "aws key id";
      return 20;
    }
  }
  if (rest.substr(0, 3) == "eyJ") {
    // header.payload.signature, each base64url.
    auto b64 = [](char c) { return is_alnum(c) || c == '_' || c == '-' || c == '='; };
    std::size_t n = run_length(text, at, b64);
    if (at + n < text.size() && text[at + n] == '.' && text.substr(at + n + 1, 3) == "eyJ") {
      std::size_t m = run_length(text, at + n + 1, b64);
      std::size_t end = at + n + 1 + m;
      if (end < text.size() && text[end] == '.') {
        std::size_t s = run_length(text, end + 1, b64);
        if (s > 0) {
          kind = "jwt";
          return end + 1 + s - at;
        }
      }
    }
  }
  return 0;
}

// The end of a value that follows `=` or `:` at `at`: quoted or up to space.
std::size_t value_end(std::string_view text, std::size_t at) {
  if (at < text.size() && (text[at] == '"' || text[at] == '\'')) {
    const std::size_t close = text.find(text[at], at + 1);
    return close == std::string_view::npos ? text.size() : close + 1;
  }
  std::size_t end = at;
  while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])) && text[end] != ',' && text[end] != ';') ++end;
  return end;
}

void append_marker(std::string& out, std::string_view kind, std::string_view value) {
  // A quoted value keeps its quotes around the marker.
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
    out.push_back(value.front());
    out += redaction_marker(kind, value.size() - 2);
    out.push_back(value.front());
    return;
  }
  out += redaction_marker(kind, value.size());
}

}  // namespace

bool name_says_secret(std::string_view name) {
  static constexpr std::array<std::string_view, 11> kWords{"token",    "key",        "apikey",  "secret",
                                                           "password", "passwd",     "credential", "credentials",
                                                           "pat",      "privatekey", "passphrase"};
  // auth_token and access_token are covered by their "token" part.
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = name.find_first_of("_-.", start);
    if (end == std::string_view::npos) end = name.size();
    const std::string_view part = name.substr(start, end - start);
    for (auto word : kWords) {
      if (iequals(part, word)) return true;
    }
    start = end + 1;
  }
  return false;
}

std::string redaction_marker(std::string_view kind, std::size_t length) {
  return fmt::format("<redacted:{}, {} chars>", kind, length);
}

std::string redact_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const bool word_start = i == 0 || !is_token_char(text[i - 1]);
    if (word_start) {
      // PEM private key block: everything to its END line.
      if (text.substr(i, 11) == "-----BEGIN " ) {
        const std::size_t line_end = text.find("-----", i + 11);
        if (line_end != std::string_view::npos && text.substr(i, line_end - i).find("PRIVATE KEY") != std::string_view::npos) {
          std::size_t end = text.find("-----END ", line_end + 5);
          end = end == std::string_view::npos ? text.size() : text.find("-----", end + 9);
          end = end == std::string_view::npos ? text.size() : end + 5;
          out += redaction_marker("private key", end - i);
          i = end;
          continue;
        }
      }
      std::string_view kind;
      if (const std::size_t n = shape_at(text, i, kind); n > 0) {
        out += redaction_marker(kind, n);
        i += n;
        continue;
      }
      // NAME=value, NAME: value, "name": "value" where the name says secret.
      const bool quoted = text[i] == '"';
      const std::size_t name_at = quoted ? i + 1 : i;
      const std::size_t name_len = run_length(text, name_at, is_name_char);
      if (name_len > 0) {
        std::size_t after = name_at + name_len;
        if (quoted && after < text.size() && text[after] == '"') ++after;
        else if (quoted) after = std::string_view::npos;
        if (after != std::string_view::npos && after < text.size() && (text[after] == '=' || text[after] == ':') &&
            name_says_secret(text.substr(name_at, name_len))) {
          std::size_t value_at = after + 1;
          if (text[after] == ':') value_at += run_length(text, value_at, [](char c) { return c == ' '; });
          const std::size_t end = value_end(text, value_at);
          // `key: ` with nothing after it, or a URL's scheme, is not a value.
          if (end > value_at && text.substr(value_at, 2) != "//") {
            out.append(text.substr(i, value_at - i));
            append_marker(out, "secret", text.substr(value_at, end - value_at));
            i = end;
            continue;
          }
        }
      }
    }
    // scheme://user:pass@ : the password goes.
    if (text.substr(i, 3) == "://") {
      const std::size_t user_at = i + 3;
      std::size_t end = user_at;
      while (end < text.size() && text[end] != '@' && text[end] != '/' && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
      const std::size_t colon = text.find(':', user_at);
      if (end < text.size() && text[end] == '@' && colon != std::string_view::npos && colon < end) {
        out.append(text.substr(i, colon + 1 - i));
        out += redaction_marker("password", end - colon - 1);
        i = end;
        continue;
      }
    }
    out.push_back(text[i]);
    ++i;
  }
  return out;
}

std::vector<std::string> redact_argv(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  bool next_is_secret = false;
  for (const auto& arg : argv) {
    if (next_is_secret) {
      out.push_back(redaction_marker("secret", arg.size()));
      next_is_secret = false;
      continue;
    }
    std::string_view view = arg;
    if (view.substr(0, 1) == "-") {
      std::string_view option = view.substr(view.find_first_not_of('-') == std::string_view::npos ? view.size() : view.find_first_not_of('-'));
      const std::size_t eq = option.find('=');
      if (eq == std::string_view::npos) {
        // --name value: the next argument is the value.
        next_is_secret = !option.empty() && name_says_secret(option);
      }
      // --name=value is a NAME=value pair for redact_text.
    }
    out.push_back(redact_text(arg));
  }
  return out;
}

std::string redact_env_value(std::string_view name, std::string_view value) {
  if (name_says_secret(name)) return redaction_marker("secret", value.size());
  return redact_text(value);
}

}  // namespace ftdiag
