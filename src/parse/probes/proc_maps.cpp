#include "parse/probes/proc_maps.h"

#include <algorithm>
#include <charconv>

namespace ftdiag::parse {

namespace {

// Takes one space-delimited field off the front of `rest`.
std::string_view take_field(std::string_view& rest) {
  const auto start = rest.find_first_not_of(' ');
  if (start == std::string_view::npos) {
    rest = {};
    return {};
  }
  rest.remove_prefix(start);
  const auto end = rest.find(' ');
  const auto field = rest.substr(0, end);
  rest.remove_prefix(end == std::string_view::npos ? rest.size() : end);
  return field;
}

bool parse_hex(std::string_view text, std::uint64_t& value) {
  if (text.empty()) return false;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  return ec == std::errc{} && ptr == text.data() + text.size();
}

}  // namespace

std::optional<MapsEntry> parse_maps_line(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  std::string_view rest = line;
  MapsEntry entry;
  const auto range = take_field(rest);
  const auto dash = range.find('-');
  if (dash == std::string_view::npos || !parse_hex(range.substr(0, dash), entry.start) ||
      !parse_hex(range.substr(dash + 1), entry.end) || entry.end < entry.start) {
    return std::nullopt;
  }
  const auto permissions = take_field(rest);
  if (permissions.size() != 4) return std::nullopt;
  entry.permissions = std::string(permissions);
  if (!parse_hex(take_field(rest), entry.offset)) return std::nullopt;
  const auto device = take_field(rest);
  if (device.find(':') == std::string_view::npos) return std::nullopt;
  const auto inode = take_field(rest);
  if (inode.empty() || std::from_chars(inode.data(), inode.data() + inode.size(), entry.inode).ptr != inode.data() + inode.size()) {
    return std::nullopt;
  }
  const auto path_start = rest.find_first_not_of(' ');
  if (path_start != std::string_view::npos) {
    std::string_view path = rest.substr(path_start);
    constexpr std::string_view kDeleted = " (deleted)";
    if (path.size() > kDeleted.size() && path.ends_with(kDeleted)) {
      path.remove_suffix(kDeleted.size());
      entry.deleted = true;
    }
    entry.path = std::string(path);
  }
  return entry;
}

std::vector<MapsEntry> parse_maps(std::string_view text) {
  std::vector<MapsEntry> maps;
  while (!text.empty()) {
    const auto end = text.find('\n');
    if (auto entry = parse_maps_line(text.substr(0, end))) maps.push_back(std::move(*entry));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  }
  return maps;
}

const MapsEntry* mapping_of(const std::vector<MapsEntry>& maps, std::uint64_t address) {
  // The kernel prints them sorted; a hand-made or damaged list may not be.
  const bool sorted = std::is_sorted(maps.begin(), maps.end(), [](const MapsEntry& a, const MapsEntry& b) { return a.start < b.start; });
  if (sorted) {
    auto it = std::upper_bound(maps.begin(), maps.end(), address, [](std::uint64_t a, const MapsEntry& e) { return a < e.start; });
    if (it == maps.begin()) return nullptr;
    --it;
    return it->holds(address) ? &*it : nullptr;
  }
  for (const auto& entry : maps) {
    if (entry.holds(address)) return &entry;
  }
  return nullptr;
}

}  // namespace ftdiag::parse
