// CUDA and torch runtime libraries told by their names, for DT_NEEDED
// entries and the files of LD_LIBRARY_PATH's directories alike.
#include <doctest/doctest.h>

#include <string>

#include "parse/python_env/runtime_libraries.h"

using namespace ftdiag::parse;

TEST_CASE("python runtime libraries: CUDA and torch runtimes by name") {
  for (const char* name : {"libcudart.so", "libcudart.so.11.0", "libcudart.so.12", "libcuda.so.1", "libcublas.so.12",
                           "libcublasLt.so.12", "libcudnn.so.9", "libcudnn_ops_infer.so.8", "libnccl.so.2",
                           "libnvrtc.so.12", "libnvrtc-builtins.so.12.8", "libtorch.so", "libtorch_cuda.so",
                           "libtorch_cpu.so", "libtorch_python.so", "libc10.so", "libc10_cuda.so"}) {
    CHECK_MESSAGE(names_cuda_or_torch_runtime(name), name);
  }
  for (const char* name : {"libc.so.6", "libcudart_static.a", "libcudart.txt", "libtorchaudio.so", "libc10x.so",
                           "libcudadevrt.a", "libcufft.so.11", "libshm.so", "libcudart", "libtorch_cuda.so.bak.txt",
                           ""}) {
    CHECK_MESSAGE(!names_cuda_or_torch_runtime(name), name);
  }
}
