// Reading helpers shared by the cgroup v1 and v2 backends: one file, one parse.
#pragma once

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "base/fact.h"

namespace ftdiag::collect {

using FlatKeyed = std::map<std::string, std::uint64_t>;

// Each reads directory/name and parses it; a read failure keeps its errno
// reason (a removed cgroup is not_present), a parse failure names the file.
Fact<std::uint64_t> read_cgroup_u64(const std::filesystem::path& directory, std::string_view name);
Fact<std::optional<std::uint64_t>> read_cgroup_limit(const std::filesystem::path& directory,
                                                     std::string_view name);
Fact<FlatKeyed> read_cgroup_keyed(const std::filesystem::path& directory, std::string_view name);

// The value of the first key present, in order of preference. When the file
// itself is Missing, that Missing is returned; when no key is present,
// `when_absent` is (the kernel may be too old for the key, for instance).
Fact<std::uint64_t> pick(const Fact<FlatKeyed>& values, std::initializer_list<std::string_view> keys,
                         const Missing& when_absent);

}  // namespace ftdiag::collect
