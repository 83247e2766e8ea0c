// Human units for the terminal renderers.
#pragma once

#include <cstdint>
#include <string>

namespace ftdiag {

// "512 B", "1.5 KiB", "98.0 MiB", "63.2 GiB".
std::string format_bytes(std::uint64_t bytes);

// "0.8 s", "12.3 s", "4 min 02 s", "3 h 07 min".
std::string format_duration(double seconds);

}  // namespace ftdiag
