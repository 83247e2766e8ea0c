// The DT_NEEDED entries of a shared library: the sonames the dynamic
// loader must find for it ("libcudart.so.11.0", "libtorch_cuda.so"), read
// with libelf from the file's headers and dynamic segment only.
//
// The file may be anything a user left in site-packages: a text file named
// .so, a library truncated by a full disk, one replaced while we read it.
// So the file is read with pread (ELF_C_READ: libelf loads each part it is
// asked for), never mmap'ed — a file truncated under a mapping raises
// SIGBUS on access, a short pread is only an error — and every size and
// offset the file states is checked against the file's size before use.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "base/fact.h"

namespace ftdiag::collect {

// The entries in the order the dynamic section lists them (at most 4096;
// a name longer than 512 bytes is left out). An ELF file without a dynamic
// segment (a static executable, an object file) needs nothing: empty.
// Missing: not_present (no file), permission_denied, failed (not a regular
// file), unparseable ("not an ELF file", "truncated: …").
// Reads the ELF header, the program headers, the dynamic segment (at most
// 1 MiB) and one bounded read per entry's name — never the whole file.
Fact<std::vector<std::string>> read_elf_needed(const std::filesystem::path& path);

}  // namespace ftdiag::collect
