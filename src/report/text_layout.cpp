#include "report/text_layout.h"

#include <vector>

#include "base/text.h"

namespace ftdiag::report {

std::size_t display_width(std::string_view text) {
  std::size_t width = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0x1b && i + 1 < text.size() && text[i + 1] == '[') {
      // An SGR sequence, ESC [ ... m, takes no column.
      i += 2;
      while (i < text.size() && text[i] != 'm') ++i;
      continue;
    }
    if ((c & 0xC0) != 0x80) ++width;  // a UTF-8 continuation byte adds nothing
  }
  return width;
}

std::string wrap(std::string_view text, std::size_t width, std::string_view first, std::string_view rest) {
  std::string out;
  std::string_view prefix = first;
  std::size_t from = 0;
  for (;;) {
    const std::size_t end = std::min(text.find('\n', from), text.size());
    out += prefix;
    std::size_t column = display_width(prefix);
    bool line_has_word = false;
    for (const auto word : ftdiag::text::fields(text.substr(from, end - from))) {
      const std::size_t w = display_width(word);
      if (line_has_word && column + 1 + w > width) {
        out += '\n';
        out += rest;
        column = display_width(rest);
        line_has_word = false;
      }
      if (line_has_word) {
        out += ' ';
        ++column;
      }
      out += word;
      column += w;
      line_has_word = true;
    }
    out += '\n';
    prefix = rest;
    if (end >= text.size()) break;
    from = end + 1;
  }
  return out;
}

std::string html_escape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string toned(const TextStyle& style, Tone tone, std::string_view text) {
  if (!style.colour || text.empty()) return std::string(text);
  const char* code = "";
  switch (tone) {
    case Tone::strong: code = "\x1b[1m"; break;
    case Tone::bad: code = "\x1b[1;31m"; break;
    case Tone::warn: code = "\x1b[33m"; break;
    case Tone::good: code = "\x1b[32m"; break;
    case Tone::quiet: code = "\x1b[2m"; break;
  }
  return std::string(code) + std::string(text) + "\x1b[0m";
}

}  // namespace ftdiag::report
