#include "facts/module_roles.h"

#include <array>

namespace ftdiag::facts {

namespace {

bool starts_with_any(std::string_view name, std::initializer_list<std::string_view> prefixes) {
  for (auto prefix : prefixes) {
    if (name.starts_with(prefix)) return true;
  }
  return false;
}

}  // namespace

std::string_view base_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool is_jit_extension(std::string_view path) { return path.find("/torch_extensions/") != std::string_view::npos; }

std::string_view module_role(std::string_view path) {
  const auto name = base_name(path);
  // libcuda.so.1 is the driver's user-space half; libcudart the runtime a
  // framework was built with (and may bundle: libcudart-<hash>.so.12).
  if (name.starts_with("libcuda.so") || starts_with_any(name, {"libnvidia-ptxjitcompiler", "libnvidia-ml"})) return "cuda-driver";
  if (name.starts_with("libcudart")) return "cuda-runtime";
  if (starts_with_any(name, {"libcublas", "libcudnn", "libcufft", "libcurand", "libcusparse", "libcusolver", "libnvrtc",
                             "libnvJitLink", "libcupti"})) {
    return "cuda-math";
  }
  if (name.starts_with("libnccl")) return "nccl";
  if (starts_with_any(name, {"libtorch", "libc10", "libshm.so", "libcaffe2"}) ||
      (path.find("/torch/") != std::string_view::npos && name.starts_with("_C"))) {
    return "torch";
  }
  if (starts_with_any(name, {"libpython"}) || name.starts_with("python3") || name == "python") return "libpython";
  if (starts_with_any(name, {"libc.so", "libc-", "libpthread", "ld-linux", "libstdc++", "libgcc_s", "libm.so", "libdl",
                             "librt", "libc++", "libunwind"})) {
    return "c-runtime";
  }
  if (name.find(".cpython-") != std::string_view::npos || name.ends_with(".abi3.so") || is_jit_extension(path) ||
      path.find("-packages/") != std::string_view::npos) {
    return "python-extension";
  }
  return "other";
}

std::string library_family(std::string_view path) {
  const auto name = base_name(path);
  static constexpr std::array kFamilies = {"libcudart", "libtorch_cpu", "libtorch_cuda", "libtorch_python", "libc10_cuda",
                                           "libc10",    "libnccl",      "libcublasLt",   "libcublas",       "libcudnn",
                                           "libnvrtc",  "libcusparse",  "libcufft"};
  for (std::string_view family : kFamilies) {
    if (!name.starts_with(family)) continue;
    // "libc10.so" is the family "libc10", "libc10_cuda.so" is not.
    const auto next = name.substr(family.size());
    if (next.empty() || next.front() == '.' || next.front() == '-') return std::string(family);
  }
  return {};
}

}  // namespace ftdiag::facts
