#include "collect/python_env/package_builds.h"

#include <algorithm>

#include "collect/python_env/python_files.h"
#include "parse/python_env/bitsandbytes_build.h"
#include "parse/python_env/deepspeed_build.h"
#include "parse/python_env/torch_build.h"

namespace ftdiag::collect {
namespace {

constexpr std::size_t kMaxVersionPy = 64 << 10;
constexpr std::size_t kMaxDeepSpeedInfo = 256 << 10;
constexpr std::size_t kMaxFolderNames = 4096;

std::string unreadable(const std::filesystem::path& path, const Missing& why) {
  return "could not read " + path.string() + " (" + std::string(to_string(why.reason)) + "): " + why.detail;
}

void read_torch(const std::filesystem::path& package_dir, PackageBuild& result) {
  const auto path = package_dir / "version.py";
  auto text = read_regular_file(path, kMaxVersionPy);
  auto torch = text ? parse::parse_torch_version_py(*text) : Fact<parse::TorchBuild>(text.missing());
  if (!torch) {
    result.problems.push_back(unreadable(path, torch.missing()));
    return;
  }
  result.version = torch->version;
  result.build = torch->build;
}

void read_deepspeed(const std::filesystem::path& package_dir, PackageBuild& result) {
  const auto path = package_dir / "git_version_info_installed.py";
  auto text = read_regular_file(path, kMaxDeepSpeedInfo);
  auto deepspeed = text ? parse::parse_deepspeed_build_info(*text) : Fact<parse::DeepSpeedBuild>(text.missing());
  if (!deepspeed) {
    result.problems.push_back(unreadable(path, deepspeed.missing()));
    return;
  }
  result.version = deepspeed->version;
  result.build = deepspeed->build;
}

void read_bitsandbytes(const std::filesystem::path& package_dir, PackageBuild& result) {
  auto listing = list_directory(package_dir, kMaxFolderNames);
  if (!listing) {
    result.problems.push_back(unreadable(package_dir, listing.missing()));
    return;
  }
  result.build["cuda_libraries"] = parse::bitsandbytes_cuda_libraries(listing->names);
  const auto& names = listing->names;
  if (std::find(names.begin(), names.end(), "libbitsandbytes_cpu.so") != names.end()) {
    result.build["cpu_library"] = "true";
  }
}

}  // namespace

PackageBuild read_package_build(std::string_view name, const std::filesystem::path& package_dir) {
  PackageBuild result;
  if (name == "torch") read_torch(package_dir, result);
  if (name == "deepspeed") read_deepspeed(package_dir, result);
  if (name == "bitsandbytes") read_bitsandbytes(package_dir, result);
  return result;
}

}  // namespace ftdiag::collect
