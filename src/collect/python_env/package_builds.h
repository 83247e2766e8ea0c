// What an installed package recorded about its own build, read from the
// files it ships, parsed in parse/python_env/: torch's version.py
// (torch_build.h), DeepSpeed's git_version_info_installed.py
// (deepspeed_build.h), bitsandbytes' native libraries, one per CUDA version
// it supports (bitsandbytes_build.h).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ftdiag::collect {

struct PackageBuild {
  std::string version;  // the version the package states itself (torch.__version__); empty if none
  std::map<std::string, std::string> build;  // model::PythonPackage::build
  std::vector<std::string> problems;         // a build file that could not be read, in words
};

// For a package folder (…/site-packages/torch) of a normalised distribution
// name; packages without build files give an empty result. Reads are bounded
// (version.py 64 KiB, DeepSpeed's file 256 KiB, 4096 names of a folder).
PackageBuild read_package_build(std::string_view name, const std::filesystem::path& package_dir);

}  // namespace ftdiag::collect
