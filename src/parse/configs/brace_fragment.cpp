#include "parse/configs/brace_fragment.h"

#include <optional>
#include <vector>

#include <fmt/format.h>

#include "base/ascii.h"
#include "parse/configs/json_settings.h"

namespace ftdiag::parse {
namespace {

enum class TokenKind { open_object, close_object, open_array, close_array, colon, comma, string, word, end };

struct Token {
  TokenKind kind = TokenKind::end;
  std::string text;  // a string's value or a word as written
};

using ascii::is_space;
bool ends_word(char c) {
  return is_space(c) || c == '{' || c == '}' || c == '[' || c == ']' || c == ':' || c == ',' || c == '"' || c == '\'';
}

// JSON's and Python's tokens in one pass; every call consumes at least one
// byte until the end.
class Tokenizer {
 public:
  explicit Tokenizer(std::string_view text) : s_(text) {}

  Token next() {
    skip_space_and_comments();
    if (pos_ >= s_.size()) return {};
    const char c = s_[pos_++];
    switch (c) {
      case '{': return {TokenKind::open_object, {}};
      case '}': return {TokenKind::close_object, {}};
      case '[': return {TokenKind::open_array, {}};
      case ']': return {TokenKind::close_array, {}};
      case ':': return {TokenKind::colon, {}};
      case ',': return {TokenKind::comma, {}};
      case '"':
      case '\'': return {TokenKind::string, quoted(c)};
      default: break;
    }
    const std::size_t start = pos_ - 1;
    while (pos_ < s_.size() && !ends_word(s_[pos_])) ++pos_;
    return {TokenKind::word, python_word(s_.substr(start, pos_ - start))};
  }

 private:
  void skip_space_and_comments() {
    while (pos_ < s_.size()) {
      if (is_space(s_[pos_])) {
        ++pos_;
      } else if (s_[pos_] == '#' || (s_[pos_] == '/' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '/')) {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      } else {
        return;
      }
    }
  }

  // Up to the closing quote, or the end of the line for a string cut short:
  // a pasted line may lose its end, never its neighbours.
  std::string quoted(char quote) {
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != quote && s_[pos_] != '\n') {
      char c = s_[pos_++];
      if (c == '\\' && pos_ < s_.size()) {
        c = s_[pos_++];
        if (c == 'n') c = '\n';
        else if (c == 't') c = '\t';
        else if (c == 'u') out += '\\';  // kept as written: the value is only compared as text
      }
      out.push_back(c);
    }
    if (pos_ < s_.size() && s_[pos_] == quote) ++pos_;
    return out;
  }

  static std::string python_word(std::string_view word) {
    if (word == "True") return "true";
    if (word == "False") return "false";
    if (word == "None") return "null";
    return std::string(word);
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

// The reader's state: a stack of open containers, the innermost last; the
// bottom one stands for the object the fragment is (or was cut out of).
class FragmentReader {
 public:
  explicit FragmentReader(std::string_view text) : tokens_(text) { frames_.push_back(Frame{}); }

  LenientReading run() {
    for (Token token = tokens_.next(); token.kind != TokenKind::end && stopped_.empty(); token = tokens_.next()) {
      take(std::move(token));
    }
    return {std::move(settings_), std::move(stopped_)};
  }

 private:
  enum class Expect { key, colon, value, after_value };
  struct Frame {
    bool array = false;
    std::size_t base = 0;  // path_'s length at the container
    std::size_t next_index = 0;
    Expect expect = Expect::key;
    bool empty = true;
  };

  void take(Token token) {
    if (frames_.back().array) return in_array(std::move(token));
    in_object(std::move(token));
  }

  void in_object(Token token) {
    Frame& frame = frames_.back();
    switch (token.kind) {
      case TokenKind::string:
      case TokenKind::word:
        if (frame.expect == Expect::value) return leaf(std::move(token.text));
        // A key (after a value, the comma was missing; after a key, the
        // earlier word was not one).
        set_key(token.text);
        frame.expect = Expect::colon;
        return;
      case TokenKind::colon:
        if (frame.expect == Expect::colon) frame.expect = Expect::value;
        return;
      case TokenKind::comma:
        frame.expect = Expect::key;
        return;
      case TokenKind::open_object:
      case TokenKind::open_array:
        // The fragment's own braces around it, or a key's section.
        if (frame.expect != Expect::value && frames_.size() == 1 && frame.empty && path_.empty()) return;
        if (frame.expect == Expect::value) return open(token.kind == TokenKind::open_array);
        return;  // a section with no key: nothing to name its settings by
      case TokenKind::close_object:
        return close();
      case TokenKind::close_array:
      case TokenKind::end:
        return;
    }
  }

  void in_array(Token token) {
    Frame& frame = frames_.back();
    switch (token.kind) {
      case TokenKind::string:
      case TokenKind::word:
        element_path();
        return put(std::move(token.text));
      case TokenKind::open_object:
      case TokenKind::open_array:
        element_path();
        return push(token.kind == TokenKind::open_array);
      case TokenKind::close_array:
        return close();
      case TokenKind::close_object:
        close();  // the array was never closed: the object's brace closes both
        return in_object(std::move(token));
      case TokenKind::colon:
      case TokenKind::comma:
      case TokenKind::end:
        (void)frame;
        return;
    }
  }

  void set_key(const std::string& name) {
    Frame& frame = frames_.back();
    path_.resize(frame.base);
    if (!path_.empty()) path_ += '.';
    path_ += name;
    frame.empty = false;
  }

  void element_path() {
    Frame& frame = frames_.back();
    frame.empty = false;
    path_.resize(frame.base);
    if (!path_.empty()) path_ += '.';
    path_ += std::to_string(frame.next_index++);
  }

  void leaf(std::string value) {
    put(std::move(value));
    frames_.back().expect = Expect::after_value;
  }

  void open(bool array) {
    frames_.back().expect = Expect::after_value;
    push(array);
  }

  void push(bool array) {
    if (frames_.size() > kMaxJsonSettingsDepth) {
      stopped_ = fmt::format("nested deeper than {} levels (at {})", kMaxJsonSettingsDepth, printable_excerpt(path_));
      return;
    }
    // A repeated key replaces its earlier section, as json.load does.
    erase_subtree();
    frames_.push_back(Frame{.array = array, .base = path_.size()});
  }

  // A close with nothing open was opened before the fragment began: passed over.
  void close() {
    if (frames_.size() == 1) return;
    const Frame frame = frames_.back();
    frames_.pop_back();
    path_.resize(frame.base);
    if (frame.empty) put(frame.array ? "[]" : "{}");
  }

  void erase_subtree() {
    settings_.erase(path_);
    const std::string prefix = path_ + '.';
    auto first = settings_.lower_bound(prefix);
    auto last = first;
    while (last != settings_.end() && last->first.starts_with(prefix)) ++last;
    settings_.erase(first, last);
  }

  void put(std::string value) {
    if (path_.empty()) return;  // a value with no key names nothing
    settings_.insert_or_assign(path_, std::move(value));
    if (settings_.size() > kMaxJsonSettingsKeys) {
      stopped_ = fmt::format("more than {} settings: not a configuration", kMaxJsonSettingsKeys);
    }
  }

  Tokenizer tokens_;
  std::vector<Frame> frames_;
  std::string path_;
  DottedSettings settings_;
  std::string stopped_;
};

}  // namespace

LenientReading read_brace_fragment(std::string_view text) { return FragmentReader(text).run(); }

}  // namespace ftdiag::parse
