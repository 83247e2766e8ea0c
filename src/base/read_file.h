// Thin, allocation-bounded reads of small kernel files (/proc, cgroupfs).
#pragma once

#include <filesystem>
#include <string>

#include "base/fact.h"

namespace ftdiag {

// Reads the whole file (procfs files report size 0, so this reads until EOF).
// Stops at max_bytes to keep a hostile or huge file from growing our memory.
// Failure is a Missing carrying the errno's meaning and the path.
Fact<std::string> read_small_file(const std::filesystem::path& path,
                                  std::size_t max_bytes = 1 << 20);

// The same for `name` in an open folder, never through a link (O_NOFOLLOW)
// and without waiting on a FIFO planted under that name (O_NONBLOCK).
Fact<std::string> read_small_file_at(int dir_fd, const std::string& name, std::size_t max_bytes = 1 << 20);

// The same from a descriptor already open (its position onwards); `name`
// is for the message.
Fact<std::string> read_small_file_fd(int fd, const std::string& name, std::size_t max_bytes = 1 << 20);

}  // namespace ftdiag
