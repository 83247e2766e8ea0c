// What an installed package recorded about its own build, read from the
// files it ships: torch's version.py (torch_build.h), DeepSpeed's
// git_version_info_installed.py (deepspeed_build.h), bitsandbytes' native
// libraries, one per CUDA version it supports.
#pragma once

#include <filesystem>
#include <map>
#include <span>
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

// bitsandbytes ships libbitsandbytes_cuda118.so, …_cuda121_nocublaslt.so,
// libbitsandbytes_cpu.so: the CUDA versions of those names, each once, in
// numeric order, comma-separated ("118,121"); "" when there are none.
std::string bitsandbytes_cuda_libraries(std::span<const std::string> file_names);

}  // namespace ftdiag::collect
