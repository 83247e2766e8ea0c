// What torch recorded about its own build in torch/version.py, a file its
// build writes (docs/environment.md; log-formats.md §8):
//
//   __version__ = '2.7.0+cu128'
//   debug = False
//   cuda: Optional[str] = '12.8'        (older builds: cuda = '11.8')
//   git_version = 'c6bcb25d…'
//   hip: Optional[str] = None           (ROCm builds: hip = '6.4.43482')
//
// Debian's python3-torch 1.13 writes `__version__ = '1.13.0a0'` and
// `cuda = None`: a CPU-only build.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "base/fact.h"

namespace ftdiag::parse {

struct TorchBuild {
  std::string version;  // __version__: what torch.__version__ says at run time
  // The build keys of model::PythonPackage, each only when known:
  //   cuda        "12.8"       (absent when the build has no CUDA)
  //   hip         "6.4.43482"  (absent when the build has no ROCm)
  //   xpu         an XPU build's version
  //   git_version "c6bcb25d…"
  //   local_tag   "cu128", "cpu", "rocm6.3": the +tag of __version__
  //   cpu_only    "true" when cuda is None and hip, rocm and xpu are None or unset
  //   debug       "true" for a debug build
  std::map<std::string, std::string> build;
};

// The local version label: "2.7.0+cu128" -> "cu128"; empty when none.
std::string local_version_tag(std::string_view version);

// Pure and total. Missing (unparseable) when the text assigns no
// __version__ string.
Fact<TorchBuild> parse_torch_version_py(std::string_view text);

}  // namespace ftdiag::parse
