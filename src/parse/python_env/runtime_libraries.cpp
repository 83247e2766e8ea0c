#include "parse/python_env/runtime_libraries.h"

#include <array>

namespace ftdiag::parse {
namespace {

struct Family {
  std::string_view stem;
  // What may follow the stem before ".so": nothing (libcudart), a name part
  // after '_' (libtorch_cuda, libc10_cuda), or any letters (libcublasLt,
  // libcudnn_ops_infer, libnvrtc-builtins).
  enum class Tail { none, underscore, any } tail;
};

constexpr std::array kFamilies = {
    Family{"libcudart", Family::Tail::none},    Family{"libcuda", Family::Tail::none},
    Family{"libcublas", Family::Tail::any},     Family{"libcudnn", Family::Tail::any},
    Family{"libnccl", Family::Tail::any},       Family{"libnvrtc", Family::Tail::any},
    Family{"libtorch", Family::Tail::underscore}, Family{"libc10", Family::Tail::underscore},
};

// ".so" or ".so.12.1": what follows the library's name in a soname or a file name.
bool is_shared_object_suffix(std::string_view rest) {
  if (rest == ".so") return true;
  if (!rest.starts_with(".so.") || rest.size() == 4) return false;
  for (char c : rest.substr(4)) {
    if (!(c >= '0' && c <= '9') && c != '.') return false;
  }
  return true;
}

bool matches(const Family& family, std::string_view name) {
  if (!name.starts_with(family.stem)) return false;
  std::string_view rest = name.substr(family.stem.size());
  const auto so = rest.find(".so");
  if (so == std::string_view::npos || !is_shared_object_suffix(rest.substr(so))) return false;
  const std::string_view tail = rest.substr(0, so);
  switch (family.tail) {
    case Family::Tail::none: return tail.empty();
    case Family::Tail::underscore: return tail.empty() || tail.front() == '_';
    case Family::Tail::any: return true;
  }
  return false;
}

}  // namespace

bool names_cuda_or_torch_runtime(std::string_view name) {
  for (const auto& family : kFamilies) {
    if (matches(family, name)) return true;
  }
  return false;
}

}  // namespace ftdiag::parse
