#include "parse/text/json_text_positions.h"

#include <utility>

namespace ftdiag::parse {

namespace {

class PositionScanner {
 public:
  explicit PositionScanner(std::string_view text) : text_(text) {}

  std::map<std::string, JsonTextPosition> run() {
    value("", 0);
    return std::move(positions_);
  }

 private:
  bool done() const { return i_ >= text_.size() || failed_; }
  char peek() const { return text_[i_]; }

  // Returns whether it consumed a value.
  bool value(const std::string& pointer, int depth) {
    skip_blank();
    if (done() || depth > kMaxIndexedDepth) return false;
    positions_.emplace(pointer, position_of_offset_from(i_));
    const char c = peek();
    if (c == '{') return object(pointer, depth);
    if (c == '[') return array(pointer, depth);
    if (c == '"') return string(nullptr);
    const std::size_t start = i_;
    while (!done() && std::string_view(",]}: \t\r\n/").find(peek()) == std::string_view::npos) ++i_;
    return i_ > start;
  }

  bool object(const std::string& pointer, int depth) {
    ++i_;
    for (skip_blank(); !done() && peek() != '}'; skip_blank()) {
      std::string key;
      if (peek() != '"' || !string(&key) || !expect(':')) return fail();
      if (!value(pointer + "/" + json_pointer_token(key), depth + 1)) return fail();
      if (!next_member('}')) return fail();
    }
    return expect('}');
  }

  bool array(const std::string& pointer, int depth) {
    ++i_;
    std::size_t index = 0;
    for (skip_blank(); !done() && peek() != ']'; skip_blank()) {
      if (!value(pointer + "/" + std::to_string(index++), depth + 1)) return fail();
      if (!next_member(']')) return fail();
    }
    return expect(']');
  }

  // After a member: a comma, or the closing bracket. Anything else (a
  // missing comma) ends the scan: what follows is not guessed at.
  bool next_member(char closing) {
    skip_blank();
    if (done()) return false;
    if (peek() == ',') {
      ++i_;
      return true;
    }
    return peek() == closing;
  }

  // Keys need only their escapes of '"' and '\\' undone to name a pointer.
  bool string(std::string* out) {
    ++i_;
    while (i_ < text_.size() && text_[i_] != '"') {
      if (text_[i_] == '\\' && i_ + 1 < text_.size()) ++i_;
      if (out) out->push_back(text_[i_]);
      ++i_;
    }
    if (i_ >= text_.size()) return fail();
    ++i_;
    return true;
  }

  bool expect(char c) {
    skip_blank();
    if (done() || peek() != c) return fail();
    ++i_;
    return true;
  }

  void skip_blank() {
    while (i_ < text_.size()) {
      const char c = text_[i_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        ++i_;
      } else if (text_.substr(i_, 2) == "//") {
        const auto end = text_.find('\n', i_);
        i_ = end == std::string_view::npos ? text_.size() : end + 1;
      } else if (text_.substr(i_, 2) == "/*") {
        const auto end = text_.find("*/", i_ + 2);
        i_ = end == std::string_view::npos ? text_.size() : end + 2;
      } else {
        return;
      }
    }
  }

  bool fail() {
    failed_ = true;
    return false;
  }

  // Positions are asked for in increasing order: continue from the last one
  // instead of recounting lines from the start (keeps the scan linear).
  JsonTextPosition position_of_offset_from(std::size_t offset) {
    for (; counted_ < offset; ++counted_) {
      if (text_[counted_] == '\n') {
        ++line_;
        line_start_ = counted_ + 1;
      }
    }
    return {line_, offset - line_start_ + 1};
  }

  std::string_view text_;
  std::size_t i_ = 0;
  bool failed_ = false;
  std::size_t counted_ = 0, line_ = 1, line_start_ = 0;
  std::map<std::string, JsonTextPosition> positions_;
};

}  // namespace

std::map<std::string, JsonTextPosition> index_json_text_positions(std::string_view text) {
  return PositionScanner(text).run();
}

std::string json_pointer_token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out.push_back(c);
  }
  return out;
}

JsonTextPosition position_of_offset(std::string_view text, std::size_t offset) {
  JsonTextPosition position;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++position.line;
      position.column = 1;
    } else {
      ++position.column;
    }
  }
  return position;
}

}  // namespace ftdiag::parse
