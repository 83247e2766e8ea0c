// A memory size as people write it on a command line: "64G", "64GiB",
// "512GB", "1.5T", "68719476736". K, M, G, T and KiB, MiB, GiB, TiB are
// powers of 1024, as `free -g`, `docker -m 64g` and /proc/meminfo count;
// KB, MB, GB, TB are powers of 1000.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/fact.h"

namespace ftdiag::estimate {

Fact<std::uint64_t> parse_byte_size(std::string_view text);

}  // namespace ftdiag::estimate
