#include "rules/json_positions.h"

namespace ftdiag::rules {

namespace {

class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  void value(const std::string& pointer, int depth) {
    skip_space();
    if (at_end() || depth > kMaxDepth) return;
    positions_.emplace(pointer, position());
    const char c = text_[i_];
    if (c == '{') {
      object(pointer, depth);
    } else if (c == '[') {
      array(pointer, depth);
    } else if (c == '"') {
      string();
    } else {
      while (!at_end() && std::string_view(",]}\n\r\t /").find(text_[i_]) == std::string_view::npos) advance();
    }
  }

  std::map<std::string, TextPosition> take() { return std::move(positions_); }

 private:
  static constexpr int kMaxDepth = 200;  // keeps hostile nesting from exhausting the stack

  bool at_end() const { return i_ >= text_.size(); }
  TextPosition position() const { return {line_, i_ - line_start_ + 1}; }
  void advance() {
    if (text_[i_] == '\n') {
      ++line_;
      line_start_ = i_ + 1;
    }
    ++i_;
  }

  void skip_space() {
    while (!at_end()) {
      const char c = text_[i_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        advance();
      } else if (c == '/' && i_ + 1 < text_.size() && text_[i_ + 1] == '/') {
        while (!at_end() && text_[i_] != '\n') advance();
      } else if (c == '/' && i_ + 1 < text_.size() && text_[i_ + 1] == '*') {
        advance();
        advance();
        while (!at_end() && !(text_[i_] == '*' && i_ + 1 < text_.size() && text_[i_ + 1] == '/')) advance();
        if (!at_end()) {
          advance();
          advance();
        }
      } else {
        return;
      }
    }
  }

  // Returns the string's raw contents (escapes kept except \" and \\, which
  // is enough for the keys of a rule file).
  std::string string() {
    std::string out;
    advance();  // opening quote
    while (!at_end() && text_[i_] != '"') {
      if (text_[i_] == '\\' && i_ + 1 < text_.size()) advance();
      out.push_back(text_[i_]);
      advance();
    }
    if (!at_end()) advance();
    return out;
  }

  bool expect(char c) {
    skip_space();
    if (at_end() || text_[i_] != c) return false;
    advance();
    return true;
  }

  void object(const std::string& pointer, int depth) {
    advance();
    while (true) {
      skip_space();
      if (at_end() || text_[i_] == '}') break;
      if (text_[i_] != '"') return;
      const std::string key = string();
      if (!expect(':')) return;
      value(pointer + "/" + escape_pointer_token(key), depth + 1);
      skip_space();
      if (!at_end() && text_[i_] == ',') advance();
      else break;
    }
    expect('}');
  }

  void array(const std::string& pointer, int depth) {
    advance();
    for (std::size_t index = 0;; ++index) {
      skip_space();
      if (at_end() || text_[i_] == ']') break;
      const std::size_t before = i_;
      value(pointer + "/" + std::to_string(index), depth + 1);
      if (i_ == before) return;  // no progress: malformed
      skip_space();
      if (!at_end() && text_[i_] == ',') advance();
      else break;
    }
    expect(']');
  }

  std::string_view text_;
  std::size_t i_ = 0;
  std::size_t line_ = 1;
  std::size_t line_start_ = 0;
  std::map<std::string, TextPosition> positions_;
};

}  // namespace

std::map<std::string, TextPosition> index_json_positions(std::string_view text) {
  Scanner scanner(text);
  scanner.value("", 0);
  return scanner.take();
}

std::string escape_pointer_token(std::string_view token) {
  std::string out;
  for (char c : token) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out.push_back(c);
  }
  return out;
}

}  // namespace ftdiag::rules
