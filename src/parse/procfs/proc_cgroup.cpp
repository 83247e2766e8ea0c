#include "parse/procfs/proc_cgroup.h"

#include <fmt/format.h>

#include <optional>

#include "parse/procfs/procfs_text.h"

namespace ftdiag::parse {
namespace {

constexpr std::string_view kDeletedSuffix = " (deleted)";

std::optional<CgroupMembership> parse_membership_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  auto first = line.find(':');
  if (first == std::string_view::npos) return std::nullopt;
  auto second = line.find(':', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  auto id = text::to_int(line.substr(0, first));
  std::string_view path = line.substr(second + 1);
  if (!id || *id < 0 || path.empty() || path.front() != '/') return std::nullopt;

  CgroupMembership membership;
  membership.hierarchy_id = *id;
  auto list = line.substr(first + 1, second - first - 1);
  if (!list.empty()) {
    for (auto controller : text::split(list, ',')) membership.controllers.emplace_back(controller);
  }
  if (path.size() > kDeletedSuffix.size() && path.ends_with(kDeletedSuffix)) {
    path.remove_suffix(kDeletedSuffix.size());
    membership.deleted = true;
  }
  membership.path = std::string(path);
  return membership;
}

}  // namespace

Fact<std::vector<CgroupMembership>> parse_proc_cgroup(std::string_view text) {
  std::vector<CgroupMembership> memberships;
  for (auto line : text::lines(text)) {
    if (auto membership = parse_membership_line(line)) memberships.push_back(std::move(*membership));
  }
  if (memberships.empty()) {
    return Missing{MissingReason::unparseable,
                   fmt::format("no \"id:controllers:/path\" line in {} bytes", text.size())};
  }
  return memberships;
}

}  // namespace ftdiag::parse
