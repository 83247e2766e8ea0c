// A child memory cgroup with a limit, under the cgroup the test runs in, for
// provoking real OOM kills. Removed (rmdir, once its processes are gone) on
// destruction.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <variant>

namespace ftdiag::itest {

class MemoryCgroupSandbox {
 public:
  // A cgroup v1 child in the memory hierarchy (memory.limit_in_bytes, and
  // memory.memsw.limit_in_bytes where swap accounting exists, so swap cannot
  // postpone the OOM kill). The text says why it cannot be made here.
  static std::variant<std::unique_ptr<MemoryCgroupSandbox>, std::string> create_v1(std::uint64_t limit_bytes);
  // A cgroup v2 cgroup (memory.max, memory.swap.max = 0) on a cgroup2 mount
  // that offers the memory controller: a child of the test's own cgroup when
  // that one delegates memory (or can be made to), else a sibling of it.
  static std::variant<std::unique_ptr<MemoryCgroupSandbox>, std::string> create_v2(std::uint64_t limit_bytes);
  // Whichever version this host offers (v2 first); the text says why neither.
  static std::variant<std::unique_ptr<MemoryCgroupSandbox>, std::string> create_any(std::uint64_t limit_bytes);

  ~MemoryCgroupSandbox();
  MemoryCgroupSandbox(const MemoryCgroupSandbox&) = delete;
  MemoryCgroupSandbox& operator=(const MemoryCgroupSandbox&) = delete;

  int version() const { return version_; }
  // Where to write a pid to move it in.
  std::filesystem::path procs_file() const { return directory_ / "cgroup.procs"; }
  const std::filesystem::path& directory() const { return directory_; }
  // The last component, unique to this sandbox: the kernel log names the
  // cgroup by a path that ends with it.
  const std::string& name() const { return name_; }
  // As /proc/PID/cgroup shows it for a member process.
  const std::string& cgroup_path() const { return cgroup_path_; }

 private:
  MemoryCgroupSandbox(int version, std::filesystem::path directory, std::string name, std::string cgroup_path)
      : version_(version), directory_(std::move(directory)), name_(std::move(name)), cgroup_path_(std::move(cgroup_path)) {}

  int version_;
  std::filesystem::path directory_;
  std::string name_;
  std::string cgroup_path_;
};

}  // namespace ftdiag::itest
