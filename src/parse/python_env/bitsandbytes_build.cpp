#include "parse/python_env/bitsandbytes_build.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/text.h"

namespace ftdiag::parse {
namespace {

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

}  // namespace ftdiag::parse
