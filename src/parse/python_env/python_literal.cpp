#include "parse/python_env/python_literal.h"

#include <optional>

namespace ftdiag::parse {
namespace {

// Deeper nesting is not something a build step writes; the bound keeps the
// recursion (one frame per level) small whatever the input.
constexpr int kMaxLiteralDepth = 16;

bool is_identifier_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_identifier_char(char c) { return is_identifier_start(c) || (c >= '0' && c <= '9'); }
bool is_number_char(char c) {
  return is_identifier_char(c) || c == '.' || c == '+' || c == '-';
}
bool is_quote(char c) { return c == '\'' || c == '"'; }

// A recursive-descent reader over the text. Every step either consumes at
// least one byte or fails, and a failed statement resumes after the line
// where it failed, so the whole parse is linear in the input.
class AssignmentParser {
 public:
  explicit AssignmentParser(std::string_view source) : s_(source) {}

  std::map<std::string, PythonLiteral> run() {
    std::map<std::string, PythonLiteral> assignments;
    while (pos_ < s_.size()) {
      statement(assignments);
      skip_to_next_line();
    }
    return assignments;
  }

 private:
  char peek(std::size_t ahead = 0) const {
    return pos_ + ahead < s_.size() ? s_[pos_ + ahead] : '\0';
  }

  void skip_to_next_line() {
    while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
    if (pos_ < s_.size()) ++pos_;
  }

  void skip_inline_space() {
    while (peek() == ' ' || peek() == '\t' || peek() == '\f') ++pos_;
  }

  // Inside brackets a statement may span lines and hold comments.
  void skip_space_in_brackets() {
    for (;;) {
      const char c = peek();
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        ++pos_;
      } else if (c == '#') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      } else {
        return;
      }
    }
  }

  std::string identifier() {
    const std::size_t start = pos_;
    if (!is_identifier_start(peek())) return {};
    while (is_identifier_char(peek())) ++pos_;
    return std::string(s_.substr(start, pos_ - start));
  }

  // After the name: "=", or ": annotation =" (the annotation is skipped).
  bool assignment_operator() {
    skip_inline_space();
    if (peek() == ':') {
      while (pos_ < s_.size() && s_[pos_] != '\n' && !(s_[pos_] == '=' && peek(1) != '=')) ++pos_;
      if (peek() != '=') return false;
    }
    if (peek() != '=' || peek(1) == '=') return false;
    ++pos_;
    return true;
  }

  void statement(std::map<std::string, PythonLiteral>& out) {
    const std::string name = identifier();  // an indented line has none: skipped
    if (name.empty() || !assignment_operator()) return;
    skip_inline_space();
    auto literal = value(0);
    if (!literal) return;
    skip_inline_space();
    if (peek() == '#') {
      while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
    }
    if (peek() == '\r') ++pos_;
    if (pos_ < s_.size() && s_[pos_] != '\n') return;  // more follows: not a plain literal
    out[name] = std::move(*literal);
  }

  std::optional<PythonLiteral> value(int depth) {
    const char c = peek();
    if (is_quote(c)) return string_value(false);
    if ((c == 'r' || c == 'R') && is_quote(peek(1))) return ++pos_, string_value(true);
    if ((c == 'u' || c == 'U' || c == 'b' || c == 'B') && is_quote(peek(1))) return ++pos_, string_value(false);
    if (c == '{') return container('}', depth + 1, true);
    if (c == '[') return container(']', depth + 1, false);
    if (c == '(') return container(')', depth + 1, false);
    if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.') return number();
    return keyword();
  }

  std::optional<PythonLiteral> keyword() {
    const std::string word = identifier();
    PythonLiteral literal;
    if (word == "None") return literal;
    if (word == "True" || word == "False") {
      literal.kind = PythonLiteral::Kind::boolean;
      literal.boolean = word == "True";
      return literal;
    }
    return std::nullopt;  // a name, a call, an expression: not a literal
  }

  std::optional<PythonLiteral> number() {
    const std::size_t start = pos_;
    ++pos_;
    while (is_number_char(peek())) ++pos_;
    PythonLiteral literal;
    literal.kind = PythonLiteral::Kind::number;
    literal.text = std::string(s_.substr(start, pos_ - start));
    return literal;
  }

  std::optional<PythonLiteral> string_value(bool raw) {
    PythonLiteral literal;
    literal.kind = PythonLiteral::Kind::string;
    if (!string_body(raw, literal.text)) return std::nullopt;
    // Adjacent literals concatenate: 'a' 'b' is 'ab'.
    for (;;) {
      const std::size_t before = pos_;
      skip_inline_space();
      if (!is_quote(peek())) {
        pos_ = before;
        return literal;
      }
      if (!string_body(false, literal.text)) return std::nullopt;
    }
  }

  // At the opening quote; appends the decoded text. Common escapes are
  // decoded; others (\x, \u, \N) are kept as written.
  bool string_body(bool raw, std::string& text) {
    const char quote = peek();
    const bool triple = peek(1) == quote && peek(2) == quote;
    pos_ += triple ? 3 : 1;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '\n' && !triple) return false;
      if (c == '\\' && pos_ + 1 < s_.size()) {
        append_escape(raw, s_[pos_ + 1], text);
        pos_ += 2;
        continue;
      }
      if (c == quote && (!triple || (peek(1) == quote && peek(2) == quote))) {
        pos_ += triple ? 3 : 1;
        return true;
      }
      text += c;
      ++pos_;
    }
    return false;  // unterminated
  }

  static void append_escape(bool raw, char escaped, std::string& text) {
    if (raw) {
      text += '\\';
      text += escaped;
      return;
    }
    switch (escaped) {
      case 'n': text += '\n'; break;
      case 't': text += '\t'; break;
      case 'r': text += '\r'; break;
      case '\\': case '\'': case '"': text += escaped; break;
      case '\n': break;  // a continued line
      default: text += '\\'; text += escaped;
    }
  }

  std::optional<PythonLiteral> container(char close, int depth, bool dict) {
    if (depth > kMaxLiteralDepth) return std::nullopt;
    ++pos_;  // the opening bracket
    PythonLiteral literal;
    literal.kind = dict ? PythonLiteral::Kind::dict : PythonLiteral::Kind::sequence;
    for (;;) {
      skip_space_in_brackets();
      if (pos_ >= s_.size()) return std::nullopt;
      if (peek() == close) {
        ++pos_;
        return literal;
      }
      if (!element(depth, dict, literal)) return std::nullopt;
      skip_space_in_brackets();
      if (peek() == ',') {
        ++pos_;
      } else if (peek() != close) {
        return std::nullopt;
      }
    }
  }

  // One dict entry (kept when its key is a string or a number) or one
  // sequence element (checked, not kept: nothing read needs them).
  bool element(int depth, bool dict, PythonLiteral& into) {
    auto first = value(depth);
    if (!first) return false;
    if (!dict) return true;
    skip_space_in_brackets();
    if (peek() != ':') return false;
    ++pos_;
    skip_space_in_brackets();
    auto second = value(depth);
    if (!second) return false;
    if (first->kind == PythonLiteral::Kind::string || first->kind == PythonLiteral::Kind::number) {
      into.items.push_back(PythonDictItem{first->text, std::move(*second)});
    }
    return true;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

}  // namespace

std::string PythonLiteral::scalar_text() const {
  return kind == Kind::string || kind == Kind::number ? text : std::string();
}

const PythonLiteral* PythonLiteral::find(std::string_view key) const {
  for (const auto& item : items) {
    if (item.key == key) return &item.value;
  }
  return nullptr;
}

std::map<std::string, PythonLiteral> parse_python_assignments(std::string_view source) {
  return AssignmentParser(source).run();
}

}  // namespace ftdiag::parse
