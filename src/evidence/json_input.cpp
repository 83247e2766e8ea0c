#include "evidence/json_input.h"

#include <utility>

#include <fmt/format.h>

namespace ftdiag::evidence {

namespace {

std::pair<std::size_t, std::size_t> line_and_column(std::string_view text, std::size_t offset) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

JsonInputError error_at(std::string_view text, std::size_t offset, std::string message) {
  auto [line, column] = line_and_column(text, offset);
  return JsonInputError{line, column, "", std::move(message)};
}

// Calls on_byte(i) for each byte of text outside strings and comments.
template <class OnByte>
void scan_outside_strings(std::string_view text, bool allow_comments, OnByte&& on_byte) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      // Past the string: a backslash escapes the next byte, whatever it is.
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
    } else if (allow_comments && c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (allow_comments && c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      const auto end = text.find("*/", i + 2);
      if (end == std::string_view::npos) return;  // the parser says what is wrong
      i = end + 1;
    } else if (!on_byte(i)) {
      return;
    }
  }
}

// Where `token` first starts outside strings and comments; npos if nowhere.
std::size_t find_outside_strings(std::string_view text, std::string_view token, bool allow_comments) {
  std::size_t found = std::string_view::npos;
  scan_outside_strings(text, allow_comments, [&](std::size_t i) {
    if (text.substr(i, token.size()) != token) return true;
    found = i;
    return false;
  });
  return found;
}

}  // namespace

std::string JsonInputError::describe() const {
  std::string out = line > 0 ? fmt::format("line {}, column {}: {}", line, column, message) : message;
  if (!pointer.empty()) out += fmt::format(" (at {})", pointer);
  return out;
}

std::size_t find_excess_nesting(std::string_view text, std::size_t max_depth, bool allow_comments) {
  std::size_t depth = 0, excess = std::string_view::npos;
  scan_outside_strings(text, allow_comments, [&](std::size_t i) {
    const char c = text[i];
    if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        excess = i;
        return false;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    return true;
  });
  return excess;
}

std::size_t find_excess_values(std::string_view text, std::size_t max_values, bool allow_comments) {
  // Every value but the first of an array or object follows a comma; every
  // array or object opens with a bracket; the root is the first value.
  std::size_t values = 1, excess = std::string_view::npos;
  scan_outside_strings(text, allow_comments, [&](std::size_t i) {
    const char c = text[i];
    if ((c == ',' || c == '[' || c == '{') && ++values > max_values) {
      excess = i;
      return false;
    }
    return true;
  });
  return excess;
}

std::variant<nlohmann::json, JsonInputError> parse_json_input(std::string_view text, const JsonInputOptions& options) {
  if (options.max_values != SIZE_MAX) {
    if (const auto at = find_excess_values(text, options.max_values, options.allow_comments); at != std::string_view::npos) {
      return error_at(text, at, fmt::format("more than {} values: larger than any document ftdiag writes", options.max_values));
    }
  }
  if (const auto at = find_excess_nesting(text, options.max_depth, options.allow_comments); at != std::string_view::npos) {
    return error_at(text, at, fmt::format("nested deeper than {} levels", options.max_depth));
  }
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/true, options.allow_comments);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based: the byte after the last one read.
    return error_at(text, e.byte > 0 ? e.byte - 1 : 0, fmt::format("not valid JSON: {}", e.what()));
  } catch (const nlohmann::json::out_of_range& e) {
    // nlohmann refuses a number beyond a double ("number overflow parsing
    // '1e999'") without a position: the token's first place in the text is it.
    const std::string_view what = e.what();
    const auto open = what.find('\''), close = what.rfind('\'');
    std::size_t at = std::string_view::npos;
    if (open != std::string_view::npos && close > open + 1) {
      at = find_outside_strings(text, what.substr(open + 1, close - open - 1), options.allow_comments);
    }
    const std::string message = "number out of range (not a finite double)";
    return at == std::string_view::npos ? JsonInputError{0, 0, "", message} : error_at(text, at, message);
  }
  return root;
}

}  // namespace ftdiag::evidence
