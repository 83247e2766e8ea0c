#include "integration/cgroup_sandbox.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "integration/harness.h"

namespace ftdiag::itest {

namespace {

struct Mount {
  std::string root;         // the cgroup path the mount shows at its top
  fs::path mount_point;
  std::string fs_type;
  std::string super_options;
};

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) parts.push_back(part);
  return parts;
}

std::vector<Mount> cgroup_mounts() {
  std::vector<Mount> mounts;
  std::istringstream in(read_text("/proc/self/mountinfo"));
  std::string line;
  while (std::getline(in, line)) {
    auto fields = split(line, ' ');
    std::size_t dash = 0;
    while (dash < fields.size() && fields[dash] != "-") ++dash;
    if (fields.size() < 5 || dash + 3 >= fields.size()) continue;
    Mount m{fields[3], fields[4], fields[dash + 1], fields[dash + 3]};
    if (m.fs_type == "cgroup" || m.fs_type == "cgroup2") mounts.push_back(std::move(m));
  }
  return mounts;
}

// The test's own cgroup path in the hierarchy whose controller list passes `match`.
template <class Match>
std::optional<std::string> own_cgroup(Match match) {
  std::istringstream in(read_text("/proc/self/cgroup"));
  std::string line;
  while (std::getline(in, line)) {
    auto first = line.find(':');
    auto second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    if (match(line.substr(0, first), line.substr(first + 1, second - first - 1))) return line.substr(second + 1);
  }
  return std::nullopt;
}

// The directory of `cgroup_path` under a mount that shows it.
std::optional<fs::path> directory_under(const Mount& mount, const std::string& cgroup_path) {
  if (mount.root == "/") return mount.mount_point / cgroup_path.substr(1);
  if (cgroup_path == mount.root) return mount.mount_point;
  if (cgroup_path.starts_with(mount.root + "/")) return mount.mount_point / cgroup_path.substr(mount.root.size() + 1);
  return std::nullopt;
}

bool has_word(const std::string& list, char separator, const std::string& word) {
  for (const auto& part : split(list, separator)) {
    if (part == word) return true;
  }
  return false;
}

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

// Writes a control file with one write(2), as the kernel wants.
std::optional<std::string> write_control(const fs::path& file, const std::string& value) {
  std::FILE* f = std::fopen(file.c_str(), "we");
  if (!f) return errno_text("open " + file.string());
  std::setvbuf(f, nullptr, _IONBF, 0);
  bool ok = std::fwrite(value.data(), 1, value.size(), f) == value.size();
  int error = errno;
  std::fclose(f);
  if (ok) return std::nullopt;
  errno = error;
  return errno_text("write " + value + " to " + file.string());
}

std::string unique_name() {
  static std::atomic<int> counter{0};
  return "ftdiag-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

std::string join_path(const std::string& parent, const std::string& name) {
  return parent == "/" ? "/" + name : parent + "/" + name;
}

}  // namespace

std::variant<std::unique_ptr<MemoryCgroupSandbox>, std::string> MemoryCgroupSandbox::create_v1(std::uint64_t limit) {
  if (::geteuid() != 0) return std::string("not root: cannot create cgroups");
  auto own = own_cgroup([](const std::string& id, const std::string& controllers) {
    return id != "0" && has_word(controllers, ',', "memory");
  });
  if (!own) return std::string("this process is in no cgroup v1 memory hierarchy (/proc/self/cgroup)");
  std::optional<fs::path> parent;
  for (const auto& mount : cgroup_mounts()) {
    if (mount.fs_type == "cgroup" && has_word(mount.super_options, ',', "memory")) parent = directory_under(mount, *own);
    if (parent) break;
  }
  if (!parent) return "no mounted cgroup v1 memory hierarchy shows " + *own;
  const std::string name = unique_name();
  const fs::path directory = *parent / name;
  if (::mkdir(directory.c_str(), 0755) != 0) return errno_text("mkdir " + directory.string());
  std::unique_ptr<MemoryCgroupSandbox> sandbox(new MemoryCgroupSandbox(1, directory, name, join_path(*own, name)));
  if (auto failed = write_control(directory / "memory.limit_in_bytes", std::to_string(limit))) return *failed;
  // memory+swap must be at least the memory limit, so it is set second.
  if (fs::exists(directory / "memory.memsw.limit_in_bytes")) {
    if (auto failed = write_control(directory / "memory.memsw.limit_in_bytes", std::to_string(limit))) return *failed;
  }
  return sandbox;
}

std::variant<std::unique_ptr<MemoryCgroupSandbox>, std::string> MemoryCgroupSandbox::create_v2(std::uint64_t limit) {
  if (::geteuid() != 0) return std::string("not root: cannot create cgroups");
  auto own = own_cgroup([](const std::string& id, const std::string& controllers) {
    return id == "0" && controllers.empty();
  });
  if (!own) return std::string("this process is in no cgroup v2 hierarchy (no 0:: line in /proc/self/cgroup)");
  std::optional<fs::path> parent;
  std::string seen;
  for (const auto& mount : cgroup_mounts()) {
    if (mount.fs_type != "cgroup2") continue;
    std::string controllers = read_text(mount.mount_point / "cgroup.controllers");
    while (!controllers.empty() && controllers.back() == '\n') controllers.pop_back();
    seen += " " + mount.mount_point.string() + " offers [" + controllers + "]";
    if (has_word(controllers, ' ', "memory")) parent = directory_under(mount, *own);
    if (parent) break;
  }
  if (!parent) return "no cgroup2 mount offers the memory controller for " + *own + ":" + (seen.empty() ? " none mounted" : seen);
  // A child gets memory.max only when its parent delegates the controller.
  // The test's own cgroup has processes (the test), and a non-root cgroup
  // with processes cannot delegate ("no internal processes"); then a sibling
  // does, when the parent already delegates memory to the test's own cgroup.
  std::string parent_path = *own;
  if (!has_word(read_text(*parent / "cgroup.subtree_control"), ' ', "memory")) {
    auto refused = write_control(*parent / "cgroup.subtree_control", "+memory");
    if (refused && *own != "/" && fs::exists(*parent / "memory.max")) {
      parent = parent->parent_path();
      parent_path = own->substr(0, own->rfind('/'));
      if (parent_path.empty()) parent_path = "/";
    } else if (refused) {
      return "cannot enable the memory controller below " + parent->string() + " (" + *refused + ")";
    }
  }
  const std::string name = unique_name();
  const fs::path directory = *parent / name;
  if (::mkdir(directory.c_str(), 0755) != 0) return errno_text("mkdir " + directory.string());
  std::unique_ptr<MemoryCgroupSandbox> sandbox(new MemoryCgroupSandbox(2, directory, name, join_path(parent_path, name)));
  if (auto failed = write_control(directory / "memory.max", std::to_string(limit))) return *failed;
  if (fs::exists(directory / "memory.swap.max")) {
    if (auto failed = write_control(directory / "memory.swap.max", "0")) return *failed;
  }
  return sandbox;
}

MemoryCgroupSandbox::~MemoryCgroupSandbox() {
  // Its processes have been reaped, but the kernel may take a moment to
  // uncharge them; rmdir fails with EBUSY until then.
  wait_until([&] { return ::rmdir(directory_.c_str()) == 0 || errno == ENOENT; }, 10);
}

std::variant<std::unique_ptr<MemoryCgroupSandbox>, std::string> MemoryCgroupSandbox::create_any(std::uint64_t limit) {
  auto v2 = create_v2(limit);
  if (std::holds_alternative<std::unique_ptr<MemoryCgroupSandbox>>(v2)) return v2;
  auto v1 = create_v1(limit);
  if (std::holds_alternative<std::unique_ptr<MemoryCgroupSandbox>>(v1)) return v1;
  return "no memory cgroup can be created here: " + std::get<std::string>(v1) + "; " + std::get<std::string>(v2);
}

}  // namespace ftdiag::itest
