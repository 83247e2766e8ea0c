#include "parse/procfs/procfs_text.h"

namespace ftdiag::parse::text {

std::optional<std::uint64_t> kib_value_to_bytes(std::string_view text) {
  auto parts = fields(text);
  // procfs prints "kB" and means KiB (fs/proc/meminfo.c show_val_kb). Without
  // the unit the line was cut short, so the number cannot be trusted.
  if (parts.size() != 2 || parts[1] != "kB") return std::nullopt;
  auto number = to_u64(parts[0]);
  if (!number) return std::nullopt;
  return checked_mul(*number, 1024);
}

namespace {

bool is_octal(char c) { return c >= '0' && c <= '7'; }

}  // namespace

std::string unescape_octal(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    bool escape = text[i] == '\\' && text.size() - i >= 4 && is_octal(text[i + 1]) &&
                  is_octal(text[i + 2]) && is_octal(text[i + 3]);
    if (escape) {
      int value = (text[i + 1] - '0') * 64 + (text[i + 2] - '0') * 8 + (text[i + 3] - '0');
      out.push_back(static_cast<char>(value & 0xff));
      i += 3;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

}  // namespace ftdiag::parse::text
