#include "parse/python_env/shebang.h"

#include "base/text.h"

namespace ftdiag::parse {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::string_view first_line(std::string_view text) {
  const auto end = text.find_first_of("\r\n");
  return end == std::string_view::npos ? text : text.substr(0, end);
}

std::string_view trim_blanks(std::string_view text) {
  while (!text.empty() && is_blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_blank(text.back())) text.remove_suffix(1);
  return text;
}

}  // namespace

std::optional<Shebang> parse_shebang(std::string_view head) {
  if (!head.starts_with("#!")) return std::nullopt;
  const std::string_view line = trim_blanks(first_line(head.substr(2)));
  std::size_t end = 0;
  while (end < line.size() && !is_blank(line[end])) ++end;
  if (end == 0) return std::nullopt;
  return Shebang{std::string(line.substr(0, end)), std::string(trim_blanks(line.substr(end)))};
}

std::optional<std::string> parse_exec_line(std::string_view head) {
  static constexpr std::string_view kMarker = "'''exec' ";
  const auto lines = text::lines(head);
  for (std::size_t i = 0; i < lines.size() && i < 5; ++i) {
    std::string_view line = lines[i];
    if (!line.starts_with(kMarker)) continue;
    line = trim_blanks(line.substr(kMarker.size()));
    std::string_view program;
    if (line.starts_with('"')) {
      const auto close = line.find('"', 1);
      if (close == std::string_view::npos) return std::nullopt;
      program = line.substr(1, close - 1);
    } else {
      program = line.substr(0, line.find_first_of(" \t\r"));
    }
    if (program.empty()) return std::nullopt;
    return std::string(program);
  }
  return std::nullopt;
}

}  // namespace ftdiag::parse
