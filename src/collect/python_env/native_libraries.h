// The native libraries of the packages found (python_packages.h) that link
// a CUDA or torch runtime (parse/python_env/runtime_libraries.h), with those DT_NEEDED
// entries (elf_needed.h). Where each package keeps its libraries is the
// catalogue's (parse/python_env/python_package_catalogue.h).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "model/environment.h"

namespace ftdiag::collect {

struct FoundLibraries {
  std::vector<model::NativeLibrary> libraries;  // only those with a runtime entry, in the order read
  std::vector<std::string> problems;            // files that are not ELF, truncated, unreadable; limits hit
};

// Walks each package's library places below its location: folders up to 8
// levels deep, never into a folder through a symbolic link (which could
// loop); a link to a file is read like the file (Debian's torch/lib links
// into /usr/lib), each file once, under the first name it was reached by;
// the path listed is that name, the one the loader opens. At most 5000
// folders are listed, and at most 200 library files of one folder (torch/lib
// holds a few dozen) and 2000 in all are read; at most 20 problems are
// listed one by one, the rest counted.
FoundLibraries find_native_libraries(std::span<const model::PythonPackage> packages);

}  // namespace ftdiag::collect
