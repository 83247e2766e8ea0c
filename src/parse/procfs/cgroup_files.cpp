#include "parse/procfs/cgroup_files.h"

#include <charconv>

#include <fmt/format.h>

#include "parse/procfs/procfs_text.h"

namespace ftdiag::parse {
namespace {

Missing unparseable(std::string_view expected, std::string_view text) {
  constexpr std::size_t kShown = 40;  // enough to recognise the content, bounded for garbage
  std::string shown;
  for (char c : text.substr(0, kShown)) shown.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  return Missing{MissingReason::unparseable,
                 fmt::format("expected {}, got \"{}\"{}", expected, shown,
                             text.size() > kShown ? "..." : "")};
}

}  // namespace

Fact<std::optional<std::uint64_t>> parse_u64_or_max(std::string_view text) {
  auto value = text::trim(text);
  if (value == "max") return std::optional<std::uint64_t>{};
  auto number = text::to_u64(value);
  if (!number) return unparseable("a byte count or \"max\"", text);
  if (*number >= kCgroupV1Unlimited) return std::optional<std::uint64_t>{};
  return std::optional<std::uint64_t>{*number};
}

Fact<std::uint64_t> parse_u64(std::string_view text) {
  auto number = text::to_u64(text::trim(text));
  if (!number) return unparseable("one unsigned number", text);
  return *number;
}

Fact<std::map<std::string, std::uint64_t>> parse_flat_keyed(std::string_view text) {
  std::map<std::string, std::uint64_t> values;
  for (auto line : text::lines(text)) {
    auto parts = text::fields(line);
    if (parts.size() != 2) continue;
    if (auto number = text::to_u64(parts[1])) values[std::string(parts[0])] = *number;
  }
  if (values.empty()) return unparseable("\"key value\" lines", text);
  return values;
}

Fact<std::vector<int>> parse_cgroup_procs(std::string_view text) {
  std::vector<int> pids;
  while (!text.empty()) {
    const auto end = text.find('\n');
    const auto line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (line.empty()) continue;
    int pid = 0;
    auto [stop, error] = std::from_chars(line.data(), line.data() + line.size(), pid);
    if (error != std::errc() || stop != line.data() + line.size() || pid <= 0) {
      return Missing{MissingReason::unparseable, "a line that is not a pid"};
    }
    pids.push_back(pid);
  }
  return pids;
}

}  // namespace ftdiag::parse
