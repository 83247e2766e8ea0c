#include "parse/configs/dotted_settings.h"

#include <fmt/format.h>

namespace ftdiag::parse {

std::string printable_excerpt(std::string_view text, std::size_t max_bytes) {
  std::string out;
  for (char c : text.substr(0, max_bytes)) out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  if (text.size() > max_bytes) out += "...";
  return out;
}

std::string line_column_of(std::string_view text, std::size_t offset) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    column = text[i] == '\n' ? 1 : column + 1;
    if (text[i] == '\n') ++line;
  }
  return fmt::format("line {}, column {}", line, column);
}

}  // namespace ftdiag::parse
