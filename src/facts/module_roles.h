// What a mapped library is to a training job, from its path: the CUDA
// driver, the CUDA runtime, CUDA's math libraries, NCCL, torch itself, a
// Python extension, libpython, the C/C++ runtime, or the program. A crash's
// module role says whose code was running; two versions of one library
// family mapped at once is an ABI mismatch waiting to crash.
#pragma once

#include <string>
#include <string_view>

namespace ftdiag::facts {

// "cuda-driver", "cuda-runtime", "cuda-math", "nccl", "torch",
// "python-extension", "libpython", "c-runtime", or "other".
std::string_view module_role(std::string_view path);

// The family a library belongs to for the two-versions check ("libcudart",
// "libtorch_cpu", "libc10", "libnccl", "libcublas", "libcudnn", ...), or empty
// for a library whose duplicates are not a finding.
std::string library_family(std::string_view path);

// The file name of a path ("/usr/lib/libc.so.6" -> "libc.so.6").
std::string_view base_name(std::string_view path);

// A torch C++/CUDA extension built just in time (torch.utils.cpp_extension's
// build folder, ~/.cache/torch_extensions or TORCH_EXTENSIONS_DIR).
bool is_jit_extension(std::string_view path);

}  // namespace ftdiag::facts
