// The packages that decide how a training job runs
// (parse/python_env/python_package_catalogue.h), found on an interpreter's
// sys.path from files alone — nothing is imported.
//
// Python's rule decides which copy counts: `import torch` loads the first
// sys.path directory holding torch/__init__.py, and importlib.metadata
// reports the first dist-info. A copy further down is shadowed and listed
// as a problem ("torch 2.1.0 in X is shadowed by torch 2.7.0 in Y").
#pragma once

#include <span>
#include <string>
#include <vector>

#include "model/environment.h"

namespace ftdiag::collect {

struct FoundPackages {
  std::vector<model::PythonPackage> packages;  // sorted by name
  std::vector<std::string> problems;           // shadowed copies, unreadable files, in words
};

// Reads each directory of sys_path in order (directories only: zip
// archives and missing entries are skipped; at most 256 entries). For a
// package with an import folder, the first directory holding that folder
// wins; its version is the one the package states (torch's version.py) or
// else its metadata's — in that directory, or failing that the first on
// sys.path (an editable install keeps its metadata apart from its code).
// nvidia-* wheels have no import folder of their own: the first metadata
// wins. build is filled from the winner's folder (package_builds.h).
FoundPackages find_python_packages(std::span<const std::string> sys_path);

}  // namespace ftdiag::collect
