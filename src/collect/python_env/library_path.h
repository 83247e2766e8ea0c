// LD_LIBRARY_PATH as the job would see it: for each directory, in order,
// the CUDA and torch runtime libraries it holds
// (parse/python_env/runtime_libraries.h). The dynamic loader searches these
// before a library's RUNPATH, so a libcudart.so.12 here is found before the
// one a wheel ships. This only records; whether it shadows anything is
// judged from the facts.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/environment.h"

namespace ftdiag::collect {

struct LibraryPathReading {
  std::vector<model::LibraryPathEntry> entries;  // one per directory, in order, provides sorted
  std::vector<std::string> problems;             // unreadable directories, in words
};

// `value` is LD_LIBRARY_PATH's value ("/usr/local/cuda/lib64:/opt/x").
// Empty entries are skipped, as are repeats of a directory; a directory that
// cannot be listed is still an entry, with nothing provided and a problem.
// At most 64 directories, 100 000 names each, are read.
LibraryPathReading read_library_path(std::string_view value);

}  // namespace ftdiag::collect
