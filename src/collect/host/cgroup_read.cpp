#include "collect/host/cgroup_read.h"

#include "collect/read_parsed.h"
#include "parse/procfs/cgroup_files.h"

namespace ftdiag::collect {
namespace {

// memory.stat is the largest file read (about 2 KiB on 6.x); 64 KiB bounds
// whatever a future kernel adds.
constexpr std::size_t kMaxControlFileBytes = 64 * 1024;

std::filesystem::path file_in(const std::filesystem::path& directory, std::string_view name) {
  return directory / std::filesystem::path(name);
}

}  // namespace

Fact<std::uint64_t> read_cgroup_u64(const std::filesystem::path& directory, std::string_view name) {
  return read_parsed(file_in(directory, name), kMaxControlFileBytes, parse::parse_u64);
}

Fact<std::optional<std::uint64_t>> read_cgroup_limit(const std::filesystem::path& directory,
                                                     std::string_view name) {
  return read_parsed(file_in(directory, name), kMaxControlFileBytes, parse::parse_u64_or_max);
}

Fact<FlatKeyed> read_cgroup_keyed(const std::filesystem::path& directory, std::string_view name) {
  return read_parsed(file_in(directory, name), kMaxControlFileBytes, parse::parse_flat_keyed);
}

Fact<std::uint64_t> pick(const Fact<FlatKeyed>& values, std::initializer_list<std::string_view> keys,
                         const Missing& when_absent) {
  if (!values) return values.missing();
  for (auto key : keys) {
    auto found = values->find(std::string(key));
    if (found != values->end()) return found->second;
  }
  return when_absent;
}

}  // namespace ftdiag::collect
