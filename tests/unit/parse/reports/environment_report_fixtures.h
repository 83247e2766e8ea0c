// Environment reports as their tools print them, for the parser's tests and
// the collector's: full outputs, with the padding, blank lines and headers
// the tools write.
#pragma once

#include <string_view>

namespace ftdiag::testing {

// python -m torch.utils.collect_env, torch 2.1 on two A100s.
inline constexpr std::string_view kCollectEnvTorch21 = R"(Collecting environment information...
PyTorch version: 2.1.0+cu121
Is debug build: False
CUDA used to build PyTorch: 12.1
ROCM used to build PyTorch: N/A

OS: Ubuntu 22.04.3 LTS (x86_64)
GCC version: (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0
Clang version: Could not collect
CMake version: version 3.27.7
Libc version: glibc-2.35

Python version: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)
Python platform: Linux-5.15.0-88-generic-x86_64-with-glibc2.35
Is CUDA available: True
CUDA runtime version: 12.1.105
CUDA_MODULE_LOADING set to: LAZY
GPU models and configuration: 
GPU 0: NVIDIA A100-SXM4-80GB
GPU 1: NVIDIA A100-SXM4-80GB

Nvidia driver version: 535.104.05
cuDNN version: Probably one of the following:
/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.0
HIP runtime version: N/A
MIOpen runtime version: N/A
Is XNNPACK available: True

CPU:
Architecture:                       x86_64
CPU op-mode(s):                     32-bit, 64-bit
Model name:                         AMD EPYC 7763 64-Core Processor

Versions of relevant libraries:
[pip3] numpy==1.24.4
[pip3] torch==2.1.0+cu121
[pip3] triton==2.1.0
[conda] Could not collect
)";

// torch 1.13 on one GPU: the GPU on the label's own line, conda's lines.
inline constexpr std::string_view kCollectEnvTorch113 = R"(PyTorch version: 1.13.1
Is debug build: False
CUDA used to build PyTorch: 11.7
ROCM used to build PyTorch: N/A

OS: Ubuntu 20.04.5 LTS (x86_64)
GCC version: (Ubuntu 9.4.0-1ubuntu1~20.04.1) 9.4.0
Clang version: Could not collect
CMake version: Could not collect
Libc version: glibc-2.31

Python version: 3.9.16 (main, Jan 11 2023, 16:05:54)  [GCC 11.2.0] (64-bit runtime)
Python platform: Linux-5.4.0-135-generic-x86_64-with-glibc2.31
Is CUDA available: True
CUDA runtime version: 11.7.99
CUDA_MODULE_LOADING set to: LAZY
GPU models and configuration: GPU 0: NVIDIA A100-SXM4-40GB
Nvidia driver version: 515.65.01
cuDNN version: Could not collect
HIP runtime version: N/A
MIOpen runtime version: N/A
Is XNNPACK available: True

Versions of relevant libraries:
[pip3] numpy==1.23.5
[conda] blas                      1.0                         mkl
[conda] pytorch                   1.13.1          py3.9_cuda11.7_cudnn8.5.0_0    pytorch
[conda] pytorch-cuda              11.7                 h67b0de4_1    pytorch
)";

// accelerate env: bullets, backticks, torch's CUDA availability in brackets,
// the config indented below.
inline constexpr std::string_view kAccelerateEnv = R"(
Copy-and-paste the text below in your GitHub issue

- `Accelerate` version: 0.27.2
- Platform: Linux-5.15.0-1058-aws-x86_64-with-glibc2.31
- `accelerate` bash location: /opt/conda/bin/accelerate
- Python version: 3.10.14
- Numpy version: 1.26.4
- PyTorch version (GPU?): 2.2.0 (True)
- PyTorch XPU available: False
- PyTorch NPU available: False
- System RAM: 186.70 GB
- GPU type: NVIDIA A10G
- `Accelerate` default config:
	- compute_environment: LOCAL_MACHINE
	- distributed_type: DEEPSPEED
	- num_processes: 4
)";

// transformers env.
inline constexpr std::string_view kTransformersEnv = R"(- `transformers` version: 4.36.2
- Platform: Linux-6.2.0-39-generic-x86_64-with-glibc2.35
- Python version: 3.11.5
- Huggingface_hub version: 0.20.1
- Safetensors version: 0.4.1
- Accelerate version: 0.25.0
- Accelerate config: 	not found
- PyTorch version (GPU?): 2.1.2+cu118 (True)
- Tensorflow version (GPU?): not installed (NA)
- Flax version (CPU?/GPU?/TPU?): not installed (NA)
- Jax version: not installed
- JaxLib version: not installed
- Using GPU in script?: yes
- Using distributed or parallel set-up in script?: deepspeed
)";

// ds_report, colour codes and all: they are printed into files too.
inline constexpr std::string_view kDsReport =
    "[2023-06-01 10:00:00,000] [INFO] [real_accelerator.py:110:get_accelerator] Setting ds_accelerator to cuda (auto detect)\n"
    "--------------------------------------------------\n"
    "DeepSpeed C++/CUDA extension op report\n"
    "--------------------------------------------------\n"
    "NOTE: Ops not installed will be just-in-time (JIT) compiled at\n"
    "      runtime if needed. Op compatibility means that your system\n"
    "      meet the required dependencies to JIT install the op.\n"
    "--------------------------------------------------\n"
    "JIT compiled ops requires ninja\n"
    "ninja .................. \x1b[92m[OKAY]\x1b[0m\n"
    "--------------------------------------------------\n"
    "op name ................ installed .. compatible\n"
    "--------------------------------------------------\n"
    "cpu_adam ............... \x1b[92m[YES]\x1b[0m ...... \x1b[92m[OKAY]\x1b[0m\n"
    "cpu_adagrad ............ \x1b[93m[NO]\x1b[0m ....... \x1b[92m[OKAY]\x1b[0m\n"
    "fused_adam ............. \x1b[92m[YES]\x1b[0m ...... \x1b[92m[OKAY]\x1b[0m\n"
    " \x1b[93m[WARNING]\x1b[0m  async_io requires the dev libaio .so object and headers but these were not found.\n"
    "async_io ............... \x1b[93m[NO]\x1b[0m ....... \x1b[93m[NO]\x1b[0m\n"
    "--------------------------------------------------\n"
    "DeepSpeed general environment info:\n"
    "torch install path ............... ['/usr/local/lib/python3.10/dist-packages/torch']\n"
    "torch version .................... 2.0.1+cu118\n"
    "deepspeed install path ........... ['/usr/local/lib/python3.10/dist-packages/deepspeed']\n"
    "deepspeed info ................... 0.9.2, unknown, unknown\n"
    "torch cuda version ............... 11.8\n"
    "torch hip version ................ None\n"
    "nvcc version ..................... 12.1\n"
    "deepspeed wheel compiled w. ...... torch 1.13, cuda 11.7\n"
    "shared memory (/dev/shm) size .... 31.27 GB\n";

// nvidia-smi (535), two GPUs and a process.
inline constexpr std::string_view kNvidiaSmi = R"(Tue Nov 14 10:00:00 2023
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.54.03              Driver Version: 535.54.03    CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |                    0 |
| N/A   32C    P0              61W / 400W |      4MiB / 81920MiB |      0%      Default |
|                                         |                      |             Disabled |
+-----------------------------------------+----------------------+----------------------+
|   1  NVIDIA A100-SXM4-80GB          On  | 00000000:0F:00.0 Off |                    0 |
| N/A   30C    P0              60W / 400W |  70001MiB / 81920MiB |     98%      Default |
|                                         |                      |             Disabled |
+-----------------------------------------+----------------------+----------------------+

+---------------------------------------------------------------------------------------+
| Processes:                                                                            |
|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |
|        ID   ID                                                             Usage      |
|=======================================================================================|
|    1   N/A  N/A     12345      C   python                                    69990MiB |
+---------------------------------------------------------------------------------------+
)";

// pip freeze, in part.
inline constexpr std::string_view kPipFreeze = R"(accelerate==0.24.1
bitsandbytes==0.41.1
deepspeed==0.12.3
flash-attn==2.3.3
peft @ file:///home/user/peft
requests==2.31.0
torch==2.1.0+cu118
torch_scatter==2.1.2+pt21cu118
transformers==4.35.0
)";

}  // namespace ftdiag::testing
