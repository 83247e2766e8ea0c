#include "collect/host/cgroup_locate.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "base/read_file.h"
#include "base/text.h"
#include "collect/host/cgroup_v1.h"
#include "collect/host/cgroup_v2.h"
#include "collect/host/mountinfo.h"
#include "collect/host/proc_cgroup.h"

namespace ftdiag::collect {
namespace {

using Located = Fact<std::unique_ptr<MemoryCgroup>>;

bool has_token(std::string_view list, char separator, std::string_view token) {
  auto tokens = separator == ',' ? text::split(list, ',') : text::fields(list);
  return std::find(tokens.begin(), tokens.end(), token) != tokens.end();
}

// The part of cgroup_path below mount_root, or nullopt when the mount shows a
// different subtree. With a cgroup namespace both are relative to the same
// namespace root, so a plain prefix match is right.
std::optional<std::string> below_mount_root(const std::string& cgroup_path,
                                            const std::string& mount_root) {
  if (mount_root == "/") return cgroup_path;
  if (cgroup_path == mount_root) return std::string("/");
  if (cgroup_path.starts_with(mount_root + "/")) return cgroup_path.substr(mount_root.size());
  return std::nullopt;
}

// The cgroup's directory under the first mount (of those accepted) that shows it.
template <class Accept>
std::optional<std::filesystem::path> directory_for(const SystemRoots& roots,
                                                   const std::vector<parse::MountEntry>& mounts,
                                                   const std::string& cgroup_path, Accept accept) {
  for (const auto& mount : mounts) {
    if (!accept(mount)) continue;
    auto relative = below_mount_root(cgroup_path, mount.root);
    if (!relative) continue;
    return roots.path(mount.mount_point) / std::filesystem::path(relative->substr(1));
  }
  return std::nullopt;
}

template <class Backend>
Located make_backend(std::filesystem::path directory, const std::string& cgroup_path) {
  std::error_code error;
  if (!std::filesystem::is_directory(directory, error)) {
    return Missing{MissingReason::not_present,
                   fmt::format("cgroup directory {} does not exist (process exited or cgroup removed)",
                               directory.string())};
  }
  return std::unique_ptr<MemoryCgroup>(std::make_unique<Backend>(std::move(directory), cgroup_path));
}

std::optional<Located> locate_v1(const SystemRoots& roots, const std::vector<parse::CgroupMembership>& groups,
                                 const std::vector<parse::MountEntry>& mounts) {
  for (const auto& group : groups) {
    if (std::find(group.controllers.begin(), group.controllers.end(), "memory") ==
        group.controllers.end()) continue;
    auto directory = directory_for(roots, mounts, group.path, [](const parse::MountEntry& m) {
      return m.fs_type == "cgroup" && has_token(m.super_options, ',', "memory");
    });
    if (directory) return make_backend<CgroupV1Memory>(*directory, group.path);
  }
  return std::nullopt;
}

std::optional<Located> locate_v2(const SystemRoots& roots, const std::vector<parse::CgroupMembership>& groups,
                                 const std::vector<parse::MountEntry>& mounts) {
  // cgroup.controllers at the mount root lists what this (namespace) root may
  // use; on a hybrid host the cgroup2 mount usually has no memory there.
  auto has_memory = [&](const parse::MountEntry& m) {
    if (m.fs_type != "cgroup2") return false;
    auto controllers = read_small_file(roots.path(m.mount_point) / "cgroup.controllers", 4096);
    return controllers && has_token(*controllers, ' ', "memory");
  };
  for (const auto& group : groups) {
    if (group.hierarchy_id != 0 || !group.controllers.empty()) continue;
    if (auto directory = directory_for(roots, mounts, group.path, has_memory)) {
      return make_backend<CgroupV2Memory>(*directory, group.path);
    }
  }
  return std::nullopt;
}

std::string describe(const std::vector<parse::CgroupMembership>& groups) {
  std::vector<std::string> lines;
  for (const auto& g : groups) {
    lines.push_back(fmt::format("{}:{}:{}", g.hierarchy_id, fmt::join(g.controllers, ","), g.path));
  }
  return fmt::format("{}", fmt::join(lines, " "));
}

}  // namespace

Located locate_memory_cgroup(const SystemRoots& roots, int pid) {
  auto groups = read_proc_cgroup(roots, pid);
  if (!groups) return groups.missing();
  auto mounts = read_mountinfo(roots);
  if (!mounts) return mounts.missing();
  if (auto v1 = locate_v1(roots, *groups, *mounts)) return std::move(*v1);
  if (auto v2 = locate_v2(roots, *groups, *mounts)) return std::move(*v2);
  return Missing{MissingReason::not_present,
                 fmt::format("no mounted memory controller for pid {} (cgroups: {}); neither a cgroup v1 "
                             "hierarchy with memory nor a cgroup2 mount listing memory in "
                             "cgroup.controllers shows its cgroup",
                             pid, describe(*groups))};
}

}  // namespace ftdiag::collect
