#include "parse/procfs/mountinfo.h"

#include <fmt/format.h>

#include <optional>

#include "parse/procfs/procfs_text.h"

namespace ftdiag::parse {
namespace {

// "36 35 98:0 /root /mnt rw,noatime [optional...] - ext3 /dev/root rw,errors=continue"
std::optional<MountEntry> parse_mount_line(std::string_view line) {
  auto parts = text::fields(line);
  std::size_t separator = 6;
  while (separator < parts.size() && parts[separator] != "-") ++separator;
  // Six fixed fields before the separator, fs type and source after it; old
  // kernels may omit super options, so those are not required.
  if (separator >= parts.size() || parts.size() < separator + 3) return std::nullopt;
  if (!text::to_int(parts[0]) || !text::to_int(parts[1])) return std::nullopt;
  MountEntry entry;
  entry.root = text::unescape_octal(parts[3]);
  entry.mount_point = text::unescape_octal(parts[4]);
  entry.mount_options = text::unescape_octal(parts[5]);
  entry.fs_type = text::unescape_octal(parts[separator + 1]);
  entry.source = text::unescape_octal(parts[separator + 2]);
  if (parts.size() > separator + 3) entry.super_options = text::unescape_octal(parts[separator + 3]);
  return entry;
}

}  // namespace

Fact<std::vector<MountEntry>> parse_mountinfo(std::string_view text) {
  std::vector<MountEntry> entries;
  for (auto line : text::lines(text)) {
    if (auto entry = parse_mount_line(line)) entries.push_back(std::move(*entry));
  }
  if (entries.empty()) {
    return Missing{MissingReason::unparseable,
                   fmt::format("no valid mountinfo line in {} bytes", text.size())};
  }
  return entries;
}

}  // namespace ftdiag::parse
