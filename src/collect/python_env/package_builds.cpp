#include "collect/python_env/package_builds.h"

#include <algorithm>
#include <optional>

#include "collect/python_env/deepspeed_build.h"
#include "collect/python_env/python_files.h"
#include "base/text.h"
#include "collect/python_env/torch_build.h"

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
  auto torch = text ? parse_torch_version_py(*text) : Fact<TorchBuild>(text.missing());
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
  auto deepspeed = text ? parse_deepspeed_build_info(*text) : Fact<DeepSpeedBuild>(text.missing());
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
  result.build["cuda_libraries"] = bitsandbytes_cuda_libraries(listing->names);
  const auto& names = listing->names;
  if (std::find(names.begin(), names.end(), "libbitsandbytes_cpu.so") != names.end()) {
    result.build["cpu_library"] = "true";
  }
}

// "libbitsandbytes_cuda121_nocublaslt.so" -> 121
std::optional<std::uint64_t> bitsandbytes_cuda_digits(std::string_view name) {
  static constexpr std::string_view kPrefix = "libbitsandbytes_cuda";
  if (!name.starts_with(kPrefix) || !name.ends_with(".so")) return std::nullopt;
  name.remove_prefix(kPrefix.size());
  const auto end = name.find_first_not_of("0123456789");
  return text::to_u64(name.substr(0, end));
}

}  // namespace

std::string bitsandbytes_cuda_libraries(std::span<const std::string> file_names) {
  std::vector<std::uint64_t> versions;
  for (const auto& name : file_names) {
    if (auto digits = bitsandbytes_cuda_digits(name)) versions.push_back(*digits);
  }
  std::sort(versions.begin(), versions.end());
  versions.erase(std::unique(versions.begin(), versions.end()), versions.end());
  std::string joined;
  for (auto version : versions) joined += (joined.empty() ? "" : ",") + std::to_string(version);
  return joined;
}

PackageBuild read_package_build(std::string_view name, const std::filesystem::path& package_dir) {
  PackageBuild result;
  if (name == "torch") read_torch(package_dir, result);
  if (name == "deepspeed") read_deepspeed(package_dir, result);
  if (name == "bitsandbytes") read_bitsandbytes(package_dir, result);
  return result;
}

}  // namespace ftdiag::collect
