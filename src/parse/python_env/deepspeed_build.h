// What DeepSpeed recorded about its own build: setup.py writes
// deepspeed/git_version_info_installed.py at build/install time:
//
//   version='0.14.0'
//   git_hash='ce78a632'
//   installed_ops={'async_io': False, 'cpu_adam': True, 'fused_adam': 1, …}
//   compatible_ops={…}
//   accelerator_name='cuda'
//   torch_info={'version': '2.1', 'bf16_support': False, 'cuda_version': '12.1',
//               'nccl_version': '2.18', 'hip_version': '0.0'}
//
// torch_info is the torch the prebuilt ops were compiled against; a wheel
// built without torch (PyPI's sdist) writes '0.0' everywhere and compiles
// its ops at run time instead.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "base/fact.h"

namespace ftdiag::parse {

struct DeepSpeedBuild {
  std::string version;  // version=, trimmed: the fallback when there is no dist-info
  // The build keys of model::PythonPackage:
  //   torch_version  "2.1"   torch_info['version']
  //   cuda_version   "12.1"  torch_info['cuda_version']
  //   hip_version, nccl_version likewise
  //     (each absent when unset or '0.0', DeepSpeed's "not built against one")
  //   installed_ops  "cpu_adam,fused_adam": the prebuilt ops (True or 1),
  //                  sorted; "" when the file lists none prebuilt
  //   git_hash       "ce78a632"
  //   accelerator    "cuda"  accelerator_name
  std::map<std::string, std::string> build;
};

// Pure and total. Missing (unparseable) when the text has none of version,
// installed_ops and torch_info as literals.
Fact<DeepSpeedBuild> parse_deepspeed_build_info(std::string_view text);

}  // namespace ftdiag::parse
