// Which shared libraries are CUDA or torch runtimes: the libraries whose
// version a package was built against and must find again at run time
// (a flash-attn built for CUDA 11 needs libcudart.so.11.0; an extension
// built against one torch needs that torch's libtorch_cuda.so and libc10.so).
// One definition for DT_NEEDED entries (elf_needed.h) and for the files of
// LD_LIBRARY_PATH's directories (library_path.h).
#pragma once

#include <string_view>

namespace ftdiag::parse {

// True for libcudart.so*, libcuda.so*, libcublas*.so* (with libcublasLt),
// libcudnn*.so*, libnccl*.so*, libnvrtc*.so*, libtorch.so*, libtorch_*.so*,
// libc10.so*, libc10_*.so*. "libcudart_static.a", "libtorchaudio.so" and
// "libcudart.txt" are not runtimes.
bool names_cuda_or_torch_runtime(std::string_view name);

}  // namespace ftdiag::parse
