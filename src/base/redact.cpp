#include "base/redact.h"

#include <cctype>
#include <optional>
#include <utility>

#include "base/ascii.h"
#include "base/token_shapes.h"

namespace ftdiag {

namespace {

using ascii::is_alnum;
using ascii::is_blank;
using ascii::run_length;

bool is_name_char(char c) { return is_alnum(c) || c == '_' || c == '-' || c == '.'; }

// A token starts where a word does: `my-hf_...` holds one, `xhf_...` and
// `my_hf_...` do not.
bool starts_word(std::string_view text, std::size_t at) { return at == 0 || (!is_alnum(text[at - 1]) && text[at - 1] != '_'); }


bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

bool is_quote(char c) { return c == '"' || c == '\''; }

std::string_view unquoted(std::string_view value) {
  if (value.size() >= 2 && is_quote(value.front()) && value.back() == value.front()) return value.substr(1, value.size() - 2);
  return value;
}

// A marker this redaction wrote, at `at`: its length, or 0. Only the shapes
// it writes count (a kind of lower-case letters and spaces, or a secret or
// password with a length class), so text dressed as a marker with a token
// inside is still redacted.
std::size_t marker_length_at(std::string_view text, std::size_t at) {
  if (text.substr(at, kRedactedMarkerStart.size()) != kRedactedMarkerStart) return 0;
  const std::size_t inner_at = at + kRedactedMarkerStart.size();
  const std::size_t close = text.find('>', inner_at);
  if (close == std::string_view::npos || close - inner_at > 40) return 0;
  const std::string_view inner = text.substr(inner_at, close - inner_at);
  for (std::string_view named : {"secret, ", "password, "}) {
    if (inner.substr(0, named.size()) != named) continue;
    for (std::string_view cls : {"1-7", "8-15", "16-31", "32-63", "64+"}) {
      if (inner.substr(named.size()) == std::string(cls) + " chars") return close + 1 - at;
    }
  }
  const bool words = !inner.empty() && run_length(inner, 0, [](char c) { return std::islower(static_cast<unsigned char>(c)) || c == ' '; }) == inner.size();
  return words ? close + 1 - at : 0;
}

// The end of a value starting at `at`: a quoted one at its closing quote
// (or the line's end), any other at a blank or a separator.
std::size_t value_end(std::string_view text, std::size_t at) {
  if (at < text.size() && is_quote(text[at])) {
    const std::size_t close = text.find(text[at], at + 1);
    const std::size_t line_end = text.find('\n', at + 1);
    if (close != std::string_view::npos && close < line_end) return close + 1;
    return line_end == std::string_view::npos ? text.size() : line_end;
  }
  std::size_t end = at;
  while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])) &&
         std::string_view(",;&\"'`").find(text[end]) == std::string_view::npos) {
    ++end;
  }
  return end;
}

void append_value_marker(std::string& out, std::string_view value, std::string_view kind = "secret") {
  const std::string_view inner = unquoted(value);
  const bool quoted = inner.size() != value.size();
  if (quoted) out.push_back(value.front());
  if (auto token = whole_token_kind(inner)) {
    out += redaction_marker(*token);
  } else {
    out += kRedactedMarkerStart;
    out += kind;
    out += ", ";
    out += length_class(inner.size());
    out += " chars>";
  }
  if (quoted) out.push_back(value.back());
}

// The whole value (in its quotes, if any) is one marker.
bool is_marker_value(std::string_view value) {
  const std::string_view inner = unquoted(value);
  return !inner.empty() && marker_length_at(inner, 0) == inner.size();
}

std::size_t unquoted_at(std::string_view text, std::size_t at) { return at < text.size() && is_quote(text[at]) ? at + 1 : at; }

// `NAME=value`, `NAME = value`, `NAME: value`, `"name": "value"`,
// `--name value` where the name says secret, and `Authorization: SCHEME
// value`: where the value starts and ends.
struct NamedValue {
  std::size_t value_at = 0;
  std::size_t value_end = 0;
  bool redacted = false;  // the value is a marker already: kept as it is
};

std::optional<NamedValue> named_value_at(std::string_view text, std::size_t i) {
  const char quote = is_quote(text[i]) ? text[i] : '\0';
  const std::size_t name_at = quote ? i + 1 : i;
  const std::size_t name_len = run_length(text, name_at, is_name_char);
  if (name_len == 0) return std::nullopt;
  const std::string_view name = text.substr(name_at, name_len);
  std::size_t at = name_at + name_len;
  if (quote) {
    if (at >= text.size() || text[at] != quote) return std::nullopt;
    ++at;
  }
  const bool authorization = iequals(name.substr(name.find_first_not_of('-') == std::string_view::npos ? 0 : name.find_first_not_of('-')), "authorization");
  if (!authorization && !name_says_secret(name)) return std::nullopt;
  const std::size_t after = at + run_length(text, at, is_blank);
  std::size_t value_at = 0;
  if (after < text.size() && (text[after] == '=' || text[after] == ':')) {
    // `==` compares and `::` scopes: neither gives a value.
    if (after + 1 < text.size() && text[after + 1] == text[after]) return std::nullopt;
    value_at = after + 1 + run_length(text, after + 1, is_blank);
  } else if (!quote && name.front() == '-' && after > at && after < text.size() && text[after] != '-') {
    value_at = after;  // --name value
  } else {
    return std::nullopt;
  }
  if (text.substr(value_at, 2) == "//") return std::nullopt;  // a URL's scheme
  // A private key block is removed whole when the scan reaches it.
  if (text.substr(unquoted_at(text, value_at), 11) == "-----BEGIN ") return std::nullopt;
  if (authorization) {
    // The scheme (Bearer, Basic, token) is kept; the credentials go.
    const std::size_t scheme = run_length(text, value_at, [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
    if (scheme > 0 && value_at + scheme < text.size() && is_blank(text[value_at + scheme])) {
      value_at += scheme + run_length(text, value_at + scheme, is_blank);
    }
  }
  // A marker (and its quotes) is passed over whole, as the first pass
  // consumed the value it stands for: the scan then resumes where it did.
  if (const std::size_t marker = marker_length_at(text, unquoted_at(text, value_at)); marker > 0) {
    std::size_t end = unquoted_at(text, value_at) + marker;
    if (end < text.size() && end > value_at + marker && text[end] == text[value_at]) ++end;
    return NamedValue{value_at, end, true};
  }
  const std::size_t end = value_end(text, value_at);
  if (end == value_at) return std::nullopt;
  const std::string_view value = text.substr(value_at, end - value_at);
  if (!authorization && !may_be_secret_value(name, value)) return std::nullopt;
  return NamedValue{value_at, end};
}

// `Bearer CREDENTIALS` anywhere (a curl command, a quoted request header):
// credentials of 16 characters or more, so prose ("bearer of news") stays.
std::optional<NamedValue> bearer_at(std::string_view text, std::size_t i) {
  if (!iequals(text.substr(i, 7), "bearer ")) return std::nullopt;
  const std::size_t value_at = i + 7 + run_length(text, i + 7, is_blank);
  if (marker_length_at(text, value_at) > 0) return std::nullopt;  // redacted already
  const std::size_t end = value_end(text, value_at);
  if (end - value_at < 16) return std::nullopt;
  return NamedValue{value_at, end};
}

// `scheme://user:password@host` at the "://" at `at`: the password's span.
std::optional<NamedValue> url_password_at(std::string_view text, std::size_t at) {
  if (text.substr(at, 3) != "://") return std::nullopt;
  const std::size_t user_at = at + 3;
  std::size_t end = user_at;
  while (end < text.size() && text[end] != '@' && text[end] != '/' && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
  if (end >= text.size() || text[end] != '@') return std::nullopt;
  const std::size_t colon = text.find(':', user_at);
  if (colon == std::string_view::npos || colon >= end || colon + 1 == end) return std::nullopt;
  if (is_marker_value(text.substr(colon + 1, end - colon - 1))) return std::nullopt;
  return NamedValue{colon + 1, end};
}

}  // namespace

std::string_view length_class(std::size_t length) {
  if (length < 8) return "1-7";
  if (length < 16) return "8-15";
  if (length < 32) return "16-31";
  if (length < 64) return "32-63";
  return "64+";
}

std::string redaction_marker(std::string_view kind) { return std::string(kRedactedMarkerStart) + std::string(kind) + ">"; }

std::string secret_value_marker(std::string_view value) {
  std::string out;
  append_value_marker(out, value);
  return out;
}

std::string LineRedactor::text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  if (key_lines_left_ > 0) {
    // Inside a private key block that began in an earlier line.
    const auto end = private_key_end_in(text);
    if (!end) {
      --key_lines_left_;
      return text.empty() ? std::string() : redaction_marker("private key");
    }
    key_lines_left_ = 0;
    out += redaction_marker("private key");
    i = *end;
  }
  while (i < text.size()) {
    if (const std::size_t marker = marker_length_at(text, i); marker > 0) {
      out.append(text.substr(i, marker));
      i += marker;
      continue;
    }
    if (starts_word(text, i)) {
      if (auto block = private_key_block_at(text, i)) {
        out += redaction_marker("private key");
        i += block->length;
        if (!block->closed) key_lines_left_ = kMaxKeyLines;
        continue;
      }
      if (auto shape = token_shape_at(text, i)) {
        out += redaction_marker(shape->kind);
        i += shape->length;
        continue;
      }
      auto named = named_value_at(text, i);
      if (!named) named = bearer_at(text, i);
      if (named) {
        // The name itself is text too (a token can sit inside it).
        out += redact_text(text.substr(i, named->value_at - i));
        const std::string_view value = text.substr(named->value_at, named->value_end - named->value_at);
        if (named->redacted) {
          out.append(value);
        } else {
          append_value_marker(out, value);
        }
        i = named->value_end;
        continue;
      }
    }
    if (auto password = url_password_at(text, i)) {
      out += redact_text(text.substr(i, password->value_at - i));
      append_value_marker(out, text.substr(password->value_at, password->value_end - password->value_at), "password");
      i = password->value_end;
      continue;
    }
    out.push_back(text[i]);
    ++i;
  }
  return out;
}

std::vector<std::string> LineRedactor::argv(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  std::string_view secret_option;  // the option before this argument, when its name says secret
  for (const auto& arg : argv) {
    const std::string_view option = std::exchange(secret_option, {});
    if (!option.empty() && arg.substr(0, 1) != "-" && !is_marker_value(arg) && may_be_secret_value(option, arg)) {
      out.push_back(secret_value_marker(arg));
      continue;
    }
    // `--name value`: the next argument is the value. (`--name=value` is
    // text's NAME=value.)
    if (arg.size() > 1 && arg[0] == '-' && run_length(arg, 0, is_name_char) == arg.size() && name_says_secret(arg)) {
      secret_option = arg;
    }
    out.push_back(text(arg));
  }
  return out;
}

std::string LineRedactor::named_value(std::string_view name, std::string_view value) {
  if (name_says_secret(name) && !is_marker_value(value) && may_be_secret_value(name, value)) return secret_value_marker(value);
  return text(value);
}

std::string redact_text(std::string_view text) { return LineRedactor().text(text); }

std::vector<std::string> redact_argv(const std::vector<std::string>& argv) { return LineRedactor().argv(argv); }

std::string redact_env_value(std::string_view name, std::string_view value) { return LineRedactor().named_value(name, value); }

}  // namespace ftdiag
