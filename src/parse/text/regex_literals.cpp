#include "parse/text/regex_literals.h"

namespace ftdiag::parse {

namespace {

bool is_alnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

class RunCollector {
 public:
  explicit RunCollector(std::string_view pattern) : p_(pattern) {}

  std::vector<std::string> collect() {
    while (i_ < p_.size() && !abandoned_) step();
    end_run();
    if (abandoned_) runs_.clear();
    return std::move(runs_);
  }

 private:
  void step() {
    const char c = p_[i_];
    if (depth_ > 0) return skip_inside_group();
    switch (c) {
      case '\\': return escape();
      case '[': end_run(); return skip_class();
      case '(': end_run(); return open_group();
      case '|': abandoned_ = true; return;  // a top-level alternative: nothing is required
      case '*': case '?': drop_last_char(); return skip_quantifier();
      case '+': end_run(); return skip_quantifier();
      case '{': drop_last_char(); return skip_quantifier();
      case '.': case '^': case '$': case ')': end_run(); ++i_; return;
      default: append(c); ++i_; return;
    }
  }

  void escape() {
    if (i_ + 1 >= p_.size()) {
      ++i_;
      return;
    }
    const char next = p_[i_ + 1];
    i_ += 2;
    if (next == 'Q') return quoted();
    if (!is_alnum(next)) return append(next);  // \. \( \\ ...: the character itself
    // \d \s \b \x41 \pL \p{Greek} \0: not a plain character. Skip what
    // may belong to it (the hex digits, name or braces of \x, \p, \P; the
    // digits of an octal escape) so none of it is taken for text.
    end_run();
    if (next == 'x' || next == 'p' || next == 'P' || (next >= '0' && next <= '9')) {
      if (i_ < p_.size() && p_[i_] == '{') {
        const auto close = p_.find('}', i_);
        i_ = close == std::string_view::npos ? p_.size() : close + 1;
      } else {
        const std::size_t digits = next == 'x' ? 2 : next == 'p' || next == 'P' ? 1 : 2;
        for (std::size_t k = 0; k < digits && i_ < p_.size() && is_alnum(p_[i_]); ++k) ++i_;
      }
    }
  }

  // \Q...\E: literal text up to \E or the end.
  void quoted() {
    const auto end = p_.find("\\E", i_);
    const auto stop = end == std::string_view::npos ? p_.size() : end;
    for (; i_ < stop; ++i_) append(p_[i_]);
    i_ = end == std::string_view::npos ? p_.size() : end + 2;
  }

  void open_group() {
    // "(?i)" and friends set flags for the rest of the pattern: once the
    // match is case-insensitive, no run is required byte for byte.
    std::size_t j = i_ + 1;
    if (j < p_.size() && p_[j] == '?') {
      std::size_t k = j + 1;
      bool case_insensitive = false, negated = false;
      while (k < p_.size() && (is_alnum(p_[k]) || p_[k] == '-')) {
        if (p_[k] == '-') negated = true;
        if (p_[k] == 'i' && !negated) case_insensitive = true;
        ++k;
      }
      if (k < p_.size() && p_[k] == ')') {
        if (case_insensitive) abandon_rest();
        i_ = k + 1;
        return;
      }
    }
    ++depth_;
    ++i_;
  }

  void skip_inside_group() {
    const char c = p_[i_];
    if (c == '\\') {
      i_ += 2;
    } else if (c == '[') {
      skip_class();
    } else {
      if (c == '(') ++depth_;
      if (c == ')') --depth_;
      ++i_;
    }
  }

  // From '[' to its ']': a ']' right after '[' or '[^' is a member, and
  // "[:alpha:]" nests.
  void skip_class() {
    ++i_;
    if (i_ < p_.size() && p_[i_] == '^') ++i_;
    if (i_ < p_.size() && p_[i_] == ']') ++i_;
    while (i_ < p_.size() && p_[i_] != ']') {
      if (p_[i_] == '\\') {
        i_ += 2;
      } else if (p_[i_] == '[' && i_ + 1 < p_.size() && p_[i_ + 1] == ':') {
        const auto close = p_.find(":]", i_ + 2);
        i_ = close == std::string_view::npos ? p_.size() : close + 2;
      } else {
        ++i_;
      }
    }
    ++i_;
  }

  // *, +, ?, {n,m}, each maybe followed by '?' (lazy).
  void skip_quantifier() {
    if (p_[i_] == '{') {
      const auto close = p_.find('}', i_);
      i_ = close == std::string_view::npos ? p_.size() : close + 1;
    } else {
      ++i_;
    }
    if (i_ < p_.size() && p_[i_] == '?') ++i_;
  }

  // A quantifier that allows zero repetitions makes the last character (all
  // bytes of it, when it is UTF-8) optional.
  void drop_last_char() {
    while (!current_.empty() && (static_cast<unsigned char>(current_.back()) & 0xC0) == 0x80) current_.pop_back();
    if (!current_.empty()) current_.pop_back();
    end_run();
  }

  void append(char c) {
    if (!rest_abandoned_) current_.push_back(c);
  }
  void end_run() {
    if (!current_.empty()) runs_.push_back(std::move(current_));
    current_.clear();
  }
  void abandon_rest() {
    end_run();
    rest_abandoned_ = true;
  }

  std::string_view p_;
  std::size_t i_ = 0;
  int depth_ = 0;
  bool abandoned_ = false;       // the whole pattern requires nothing
  bool rest_abandoned_ = false;  // nothing after this point is required byte for byte
  std::string current_;
  std::vector<std::string> runs_;
};

}  // namespace

std::vector<std::string> required_literal_runs(std::string_view pattern) { return RunCollector(pattern).collect(); }

}  // namespace ftdiag::parse
