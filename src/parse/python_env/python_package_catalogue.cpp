#include "parse/python_env/python_package_catalogue.h"

#include <array>

namespace ftdiag::parse {
namespace {

using Kind = LibraryPlace::Kind;

// torch/lib holds libtorch*.so, libc10*.so and, in some wheels, CUDA
// libraries of its own; extensions keep theirs beside their Python code or,
// for flash-attn and apex, as top-level modules (flash_attn_2_cuda.cpython-…so,
// amp_C.cpython-…so, fused_dense_cuda…so).
constexpr std::array kTorch = {LibraryPlace{Kind::folder, "torch/lib"}};
constexpr std::array kDeepSpeed = {LibraryPlace{Kind::tree, "deepspeed/ops"}};
constexpr std::array kFlashAttn = {LibraryPlace{Kind::top_files, "flash_attn"},
                                   LibraryPlace{Kind::top_trees, "flash_attn"}};
constexpr std::array kBitsAndBytes = {LibraryPlace{Kind::folder, "bitsandbytes"}};
constexpr std::array kXformers = {LibraryPlace{Kind::tree, "xformers"}};
constexpr std::array kApex = {LibraryPlace{Kind::top_trees, "apex"}, LibraryPlace{Kind::top_files, "apex"},
                              LibraryPlace{Kind::top_files, "amp_C"}, LibraryPlace{Kind::top_files, "fused_"}};
constexpr std::array kTransformerEngine = {LibraryPlace{Kind::tree, "transformer_engine"},
                                           LibraryPlace{Kind::top_files, "transformer_engine"}};
constexpr std::array kVllm = {LibraryPlace{Kind::tree, "vllm"}};

constexpr std::array kPackages = {
    CataloguedPackage{"torch", "torch", kTorch},
    CataloguedPackage{"triton", "triton", {}},
    CataloguedPackage{"deepspeed", "deepspeed", kDeepSpeed},
    CataloguedPackage{"flash-attn", "flash_attn", kFlashAttn},
    CataloguedPackage{"bitsandbytes", "bitsandbytes", kBitsAndBytes},
    CataloguedPackage{"xformers", "xformers", kXformers},
    CataloguedPackage{"apex", "apex", kApex},
    CataloguedPackage{"transformer-engine", "transformer_engine", kTransformerEngine},
    CataloguedPackage{"transformers", "transformers", {}},
    CataloguedPackage{"accelerate", "accelerate", {}},
    CataloguedPackage{"peft", "peft", {}},
    CataloguedPackage{"trl", "trl", {}},
    CataloguedPackage{"vllm", "vllm", kVllm},
};

constexpr CataloguedPackage kNvidiaWheel{"nvidia-*", "", {}};

}  // namespace

const CataloguedPackage* catalogued_package(std::string_view normalized_name) {
  for (const auto& package : kPackages) {
    if (package.name == normalized_name) return &package;
  }
  if (normalized_name.starts_with("nvidia-")) return &kNvidiaWheel;
  return nullptr;
}

std::span<const CataloguedPackage> catalogued_import_packages() { return kPackages; }

}  // namespace ftdiag::parse
