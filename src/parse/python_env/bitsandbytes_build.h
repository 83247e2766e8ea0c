// What bitsandbytes' files say about its build: it ships one native library
// per CUDA version it supports (libbitsandbytes_cuda118.so,
// libbitsandbytes_cuda121_nocublaslt.so, ...) and libbitsandbytes_cpu.so.
#pragma once

#include <span>
#include <string>

namespace ftdiag::parse {

// The CUDA versions of those names, each once, in numeric order,
// comma-separated ("118,121"); "" when there are none.
std::string bitsandbytes_cuda_libraries(std::span<const std::string> file_names);

}  // namespace ftdiag::parse
