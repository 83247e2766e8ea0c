// Bounded access to the files of a Python installation (site-packages, a
// package's own folder, LD_LIBRARY_PATH's directories).
//
// An installation is the user's, and may hold anything: a FIFO where a
// version.py should be (opening it would block), a directory of a million
// entries, a multi-gigabyte "METADATA". Every read here is bounded in bytes
// or entries, never blocks on a special file, and never throws.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "base/fact.h"

namespace ftdiag::collect {

// The first max_bytes of a regular file (symlinks followed). Anything else —
// a FIFO, a device, a directory — is Missing (not_present for a directory or
// a missing file, failed for a special file), without ever blocking: the
// file is opened O_NONBLOCK and checked with fstat before the first read.
Fact<std::string> read_regular_file(const std::filesystem::path& path, std::size_t max_bytes);

struct DirectoryListing {
  std::vector<std::string> names;  // sorted, without "." and ".."
  bool truncated = false;          // more than max_entries: the rest was not read
};

// The names in a directory, at most max_entries of them (sorted, so the
// result does not depend on the filesystem's order).
Fact<DirectoryListing> list_directory(const std::filesystem::path& directory, std::size_t max_entries);

// stat(2) after symlinks; false on any error. Never throws.
bool path_is_directory(const std::filesystem::path& path);
bool path_is_regular_file(const std::filesystem::path& path);
// lstat(2): the entry itself is a symbolic link.
bool path_is_symlink(const std::filesystem::path& path);

}  // namespace ftdiag::collect
