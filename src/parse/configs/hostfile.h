// A DeepSpeed (or MPI) hostfile: one `host slots=N` line per node.
//
//   192.168.0.6 slots=8
//   worker-2 slots=8     # a comment
//
// -> hosts.0.name = 192.168.0.6, hosts.0.slots = 8, ..., host_count = 2,
//    slots_total = 16.
#pragma once

#include <optional>
#include <string_view>

#include "parse/configs/dotted_settings.h"

namespace ftdiag::parse {

// Pure. nullopt unless every line that is not blank or a comment is a host
// with its slots (and at least one is): a hostfile is told by its content.
// At most kMaxHostfileHosts hosts are kept; host_count and slots_total count all.
std::optional<DottedSettings> read_hostfile(std::string_view text);

inline constexpr std::size_t kMaxHostfileHosts = 1024;

}  // namespace ftdiag::parse
