// rules/log-events.json family by family: each program's exact wording gives
// its kind and fields, with or without the prefixes loggers and launchers put
// before it, after a progress bar's carriage returns, NUL bytes or invalid
// UTF-8; and the near-misses that must give nothing (a sentence that says
// "Killed", a loss line that says "error", a failed git command).
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "line_event_testing.h"

using ftdiag::parse::testing::describe;
using ftdiag::parse::testing::project_table;

namespace {

std::string event_of(std::string_view line) {
  const auto event = project_table().match(line);
  return event ? describe(*event) : "(none)";
}

// What sits before a message in real consoles: torchrun --tee, torch 2.x's
// rank prefix, its glog and logging prefixes, a tqdm bar's last frames ended
// by \r, a NUL from a signal handler, bytes that are not UTF-8.
const std::vector<std::string>& prefixes() {
  static const std::vector<std::string> all{
      "",
      "[default0]:",
      "[rank3]: ",
      "W0801 13:23:17.366000 32974 torch/distributed/elastic/multiprocessing/api.py:900] ",
      "[2024-05-08 08:47:31,261] torch.distributed.elastic.multiprocessing.api: [WARNING] ",
      "Loading checkpoint shards:  14%|\xe2\x96\x88\xe2\x96\x8d        | 1/7 [00:13<01:22, 13.68s/it]\r 28%|##8 | 2/7\r",
      std::string("\0\0", 2),
      "\xff\xfe\xc3(garbage) ",
  };
  return all;
}

// The line gives `expected` whatever prefix is put before it, and with a
// trailing CR, NUL or spaces.
void check_everywhere(const std::string& line, const std::string& expected) {
  for (const auto& prefix : prefixes()) {
    for (const auto& suffix : {std::string(), std::string("\r"), std::string("  \r"), std::string(1, '\0')}) {
      const std::string text = prefix + line + suffix;
      CAPTURE(text);
      CHECK(event_of(text) == expected);
    }
  }
}

void check_none(std::string_view line) {
  CAPTURE(line);
  CHECK(event_of(line) == "(none)");
}

}  // namespace

TEST_CASE("line event families: torchrun failure summaries in every release's prefixes") {
  check_everywhere("failed (exitcode: -9) local_rank: 2 (pid: 29736) of binary: /opt/conda/bin/python3.10",
                   "rank-failed torchrun pid=29736 signal=9 exit_code=-9 rank=2 binary=/opt/conda/bin/python3.10");
  check_everywhere("  exitcode  : -11 (pid: 3304209)", "rank-failed torchrun pid=3304209 signal=11 exit_code=-11");
  check_everywhere("  traceback : Signal 9 (SIGKILL) received by PID 21120", "rank-failed torchrun pid=21120 signal=9");
  check_everywhere("Received 1 death signal, shutting down workers", "launcher-signalled torchrun signal=1");
  check_everywhere("Received Signals.SIGTERM death signal, shutting down workers", "launcher-signalled torchrun signal=15");
  // The agent closes its workers with a signal other than SIGTERM only when it received that
  // signal itself: the launcher was stopped from outside. SIGTERM is its own teardown's.
  check_everywhere("Sending process 2919043 closing signal SIGHUP", "launcher-signalled torchrun pid=2919043 signal=1");
  check_everywhere("Sending process 2919043 closing signal SIGINT", "launcher-signalled torchrun pid=2919043 signal=2");
  check_everywhere("Sending process 2919043 closing signal SIGTERM", "launcher-teardown torchrun pid=2919043 signal=15");
}

TEST_CASE("line event families: DeepSpeed launcher, accelerate and the stdlib's subprocess errors") {
  check_everywhere("[INFO] [launch.py:314:sigkill_handler] Killing subprocess 9439", "launcher-teardown deepspeed pid=9439");
  check_everywhere("[ERROR] [launch.py:434:sigkill_handler] ['/usr/bin/python3', '-u', 'main.py', '--local_rank=3', '--deepspeed'] exits with return code = -9",
                   "rank-failed deepspeed signal=9 exit_code=-9 rank=3");
  // A long argv pasted over several lines: the last one opens with "]".
  CHECK(event_of("] exits with return code = -9") == "rank-failed deepspeed signal=9 exit_code=-9");
  check_everywhere("[INFO] [launch.py:350:sigkill_handler] Main process received SIGTERM, exiting",
                   "launcher-signalled deepspeed signal=15");
  check_everywhere("subprocess.CalledProcessError: Command '['/usr/bin/python3', 'train.py', '--bf16']' died with <Signals.SIGKILL: 9>.",
                   "rank-failed python signal=9");
  check_everywhere("subprocess.CalledProcessError: Command '['/opt/conda/bin/python', 'train.py']' returned non-zero exit status 1.",
                   "rank-failed python exit_code=1 binary=/opt/conda/bin/python");
  check_everywhere("subprocess.CalledProcessError: Command 'torchrun --nproc_per_node 8 train.py' returned non-zero exit status 1.",
                   "rank-failed python exit_code=1 binary=torchrun");
  check_none("subprocess.CalledProcessError: Command '['git', 'rev-parse', 'HEAD']' returned non-zero exit status 128.");
  check_none("subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.");
  check_none("[2024-01-02 03:04:05,680] [INFO] [launch.py:351:main] Process 13266 exits successfully.");
}

TEST_CASE("line event families: DeepSpeed's host memory report") {
  check_everywhere("[INFO] [utils.py:800:see_memory_usage] CPU Virtual Memory:  used = 61.52 GB, percent = 97.8%",
                   "host-memory-usage deepspeed percent=97.8 used_gb=61.52");
  check_everywhere("CPU Virtual Memory: used = 26.4 GB, percent = 84.6%", "host-memory-usage deepspeed percent=84.6 used_gb=26.4");
  check_none("[INFO] [utils.py:792:see_memory_usage] MA 0.0 GB         Max_MA 0.0 GB         CA 0.0 GB         Max_CA 0 GB");
}

TEST_CASE("line event families: Python exceptions of interest") {
  check_everywhere("ImportError: /usr/lib/python3.7/site-packages/fused_layer_norm_cuda.cpython-37m-x86_64-linux-gnu.so: undefined symbol: _ZN2at7getTypeERKNS_6TensorE",
                   "library-abi-error python exception=ImportError library=/usr/lib/python3.7/site-packages/fused_layer_norm_cuda.cpython-37m-x86_64-linux-gnu.so symbol=_ZN2at7getTypeERKNS_6TensorE");
  check_everywhere("OSError: /opt/conda/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister",
                   "library-abi-error python exception=OSError library=/opt/conda/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so symbol=ncclCommRegister");
  check_everywhere("ImportError: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by /opt/conda/lib/libtorch_python.so)",
                   "library-abi-error python exception=ImportError library=/lib/x86_64-linux-gnu/libstdc++.so.6 required_by=/opt/conda/lib/libtorch_python.so version=GLIBCXX_3.4.30");
  check_everywhere("pyarrow.lib.ArrowMemoryError: malloc of size 64 failed", "host-memory-error pyarrow message=malloc of size 64 failed");
  check_everywhere("MemoryError", "host-memory-error python");
  check_everywhere("MemoryError: Unable to allocate buffer", "host-memory-error python message=Unable to allocate buffer");
  check_everywhere("numpy.core._exceptions._ArrayMemoryError: Unable to allocate 3.50 GiB for an array with shape (1000, 1000000) and data type float32",
                   "host-memory-error numpy requested=3.50 GiB");
  check_everywhere("RuntimeError: [enforce fail at alloc_cpu.cpp:114] data. DefaultCPUAllocator: not enough memory: you tried to allocate 2147483648 bytes.",
                   "host-memory-error pytorch requested=2147483648");
  check_everywhere("RuntimeError: $ Torch: not enough memory: you tried to allocate 2GB. Buy new RAM! at /pytorch/aten/src/TH/THGeneral.cpp:201",
                   "host-memory-error pytorch requested=2GB");
  check_everywhere("RuntimeError: One of the subprocesses has abruptly died during map operation.To debug the error, disable multiprocessing.",
                   "worker-died datasets pool=datasets.map");
  // As a quoted source line of the traceback (datasets prints its own code).
  CHECK(event_of("    714                 \"One of the subprocesses has abruptly died during map operation.\"") ==
        "worker-died datasets pool=datasets.map");
  check_none("    raise MemoryError()");
  check_none("We detected a memory limit in the config: max_memory=80GiB");
  check_none("MemoryErrorHandler registered");
}

TEST_CASE("line event families: faulthandler, gdb, UCX and Open MPI crash reports, and their frames") {
  check_everywhere("Fatal Python error: Segmentation fault", "native-crash python-faulthandler signal=11");
  check_everywhere("Fatal Python error: Bus error", "native-crash python-faulthandler signal=7");
  check_everywhere("Fatal Python error: Floating-point exception", "native-crash python-faulthandler signal=8");
  check_everywhere("Fatal Python error: Cannot recover from stack overflow.", "stack-overflow python signal=6");
  check_everywhere("Fatal Python error: _Py_CheckRecursiveCall: Cannot recover from stack overflow.", "stack-overflow python signal=6");
  check_everywhere("Process finished with exit code -1073741571 (0xC00000FD)", "stack-overflow windows");
  check_everywhere("Unhandled exception at 0x00007FFCF104E044 (_C.cp36-win_amd64.pyd) in python3.exe: 0xC00000FD: Stack overflow (parameters: 0x0000000000000001, 0x00000003B1203FE8).",
                   "stack-overflow windows");
  check_everywhere("subprocess exited with status 3221225725", "stack-overflow windows");
  check_everywhere("Process finished with exit code -1073741819 (0xC0000005)", "native-crash windows signal=11");
  check_everywhere("Windows fatal exception: access violation", "native-crash python-faulthandler signal=11");
  check_none("Process finished with exit code 0");
  check_everywhere("Fatal Python error: PyThreadState_Get: no current thread",
                   "python-fatal-error python signal=6 error=PyThreadState_Get: no current thread");
  check_everywhere("Program terminated with signal SIGSEGV, Segmentation fault.", "native-crash gdb signal=11");
  check_everywhere("[860dbb3d-01:575573:0:579475] Caught signal 11 (Segmentation fault: invalid permissions for mapped object at address 0x148186426110)",
                   "native-crash ucx pid=575573 signal=11 address=0x148186426110 host=860dbb3d-01 reason=Segmentation fault: invalid permissions for mapped object at address 0x148186426110 tid=579475");
  // A space-padded pid; the reason cut by a wrapped paste.
  CHECK(event_of("[hlc-VirtualBox:6031 :0:6031] Caught signal 7 (Bus error: nonexistent physical addr\\") ==
        "native-crash ucx pid=6031 signal=7 host=hlc-VirtualBox reason=Bus error: nonexistent physical addr tid=6031");
  check_everywhere("==== backtrace (tid: 579475) ====", "native-backtrace ucx printed_by=fatal-error-handler tid=579475");
  CHECK(event_of("==== backtrace (tid:   6031) ====") == "native-backtrace ucx printed_by=fatal-error-handler tid=6031");
  CHECK(event_of("[860301:1]: 1 0x00000000000b2e00 ucp_wireup_get_dst_rsc_indices()  /src/ucp/wireup/wireup.c:1369") ==
        "native-frame ucx address=0000000b2e00 function=ucp_wireup_get_dst_rsc_indices index=1 location=/src/ucp/wireup/wireup.c:1369 printed_by=fatal-error-handler");
  CHECK(event_of(" 0 0x0000000000042520 __sigaction()  ???:0") == "native-frame ucx address=000000042520 function=__sigaction index=0 location=???:0 printed_by=fatal-error-handler");
  check_everywhere("Thread 39 \"python\" received signal SIGSEGV, Segmentation fault.", "native-crash gdb signal=11 name=python thread=39");
  CHECK(event_of("ad 39 \"python\" received signal SIGSEGV, Segmentation fault.") == "native-crash gdb signal=11 name=python");
  CHECK(event_of("#0  0x00007fffc1523cd4 in at::Tensor::neg (this=0x7ffef00009f0)") ==
        "native-frame gdb address=7fffc1523cd4 function=at::Tensor::neg index=0");
  CHECK(event_of("#3  0x00005555555d4b2a in _PyEval_EvalFrameDefault (tstate=<optimized out>) at Python/ceval.c:4181") ==
        "native-frame gdb address=5555555d4b2a function=_PyEval_EvalFrameDefault index=3 location=Python/ceval.c:4181");
  check_none("# 0x0000 is the null page");
  check_everywhere("Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost.  Reboot the system to recover this GPU",
                   "gpu-lost nvml pci=0000:02:00.0");
  check_none("if the GPU is lost, nothing else matters");
  check_everywhere("[node7:12345] Signal: Segmentation fault (11)", "native-crash mpi pid=12345 signal=11 host=node7 name=Segmentation fault");
  check_everywhere("[node7:12345] *** Process received signal ***", "native-backtrace mpi pid=12345 host=node7");
  check_everywhere("frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout() + 0x282 (0x7af8697cc772 in /venv/lib/libtorch_cuda.so)",
                   "native-frame pytorch address=0x7af8697cc772 function=c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout() index=1 library=/venv/lib/libtorch_cuda.so offset=0x282");
  check_everywhere("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618 (most recent call first):",
                   "native-backtrace pytorch function=checkTimeout location=../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618");
  check_none("  File \"/home/user/job/fh.py\", line 4 in worker");
  check_none("Caught signal handler installed for SIGTERM");
  check_everywhere("*** SIGSEGV (@0x0) received by PID 1234 (TID 0x7f3b2c1ff700) from PID 0; stack trace: ***",
                   "native-crash glog pid=1234 signal=11 address=0x0");
  check_none("*** Check failure stack trace: ***");
}

TEST_CASE("line event families: libraries built for another CUDA or torch, and the rendezvous and transports of the ranks") {
  check_everywhere("ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",
                   "library-abi-error python exception=ImportError library=libcudart.so.12");
  check_everywhere("OSError: /opt/venv/lib/libtorch_cuda.so: cannot open shared object file: No such file or directory",
                   "library-abi-error python exception=OSError library=/opt/venv/lib/libtorch_cuda.so");
  check_none("ImportError: libGL.so.1: cannot open shared object file: No such file or directory");
  check_everywhere("E   RuntimeError: operator torchvision::nms does not exist", "library-abi-error pytorch library=torchvision");
  check_everywhere("RuntimeError: operator xformers::efficient_attention_forward_cutlass does not exist",
                   "library-abi-error pytorch library=xformers");
  check_none("the operator said the file does not exist");
  check_everywhere("RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA versions. PyTorch has CUDA Version=11.8 and torchvision has CUDA Version=12.1.",
                   "library-abi-error torchvision");
  check_everywhere("RuntimeError: The detected CUDA version (12.1) mismatches the version that was used to compile PyTorch (11.8). Please make sure to use the same CUDA versions.",
                   "library-abi-error pytorch required_by=11.8 version=12.1");
  check_everywhere("Failed to initialize NVML: Driver/library version mismatch", "driver-module-mismatch nvml");
  check_everywhere("[  52.1] NVRM: API mismatch: the client has the version 535.104.05, but",
                   "driver-module-mismatch nvidia-kernel-module library_version=535.104.05");
  check_everywhere("E tensorflow/stream_executor/cuda/cuda_diagnostics.cc:296] kernel version 352.63.0 does not match DSO version 361.93.2 -- cannot find working devices in this configuration",
                   "driver-module-mismatch tensorflow library_version=361.93.2 module_version=352.63.0");
  check_everywhere("ImportError: cannot import name 'PrepareModuleInputOutput' from 'torch.distributed.tensor.parallel' (/opt/venv/lib/python3.12/site-packages/torch/distributed/tensor/parallel/__init__.py)",
                   "library-abi-error python exception=ImportError library=torch.distributed.tensor.parallel symbol=PrepareModuleInputOutput");
  check_everywhere("ImportError: cannot import name 'PrepareModuleInputOutput' from 'torch.distributed.tensor.parallel'",
                   "library-abi-error python exception=ImportError library=torch.distributed.tensor.parallel symbol=PrepareModuleInputOutput");
  check_everywhere("ImportError: cannot import name 'is_torch_npu_available' from 'transformers' (unknown location)",
                   "library-abi-error python exception=ImportError library=transformers symbol=is_torch_npu_available");
  // The user's own module, a circular import, and Python 3.6's shorter words are no mismatch of versions.
  check_none("ImportError: cannot import name 'build_model' from 'my_project.models' (/home/u/my_project/models/__init__.py)");
  check_none("ImportError: cannot import name 'Trainer' from partially initialized module 'transformers' (most likely due to a circular import) (/x/transformers/__init__.py)");
  check_everywhere("Exception: [extension] Failed to build PyTorch extension because the detected CUDA version (12.1) mismatches the version that was used to compile PyTorch (11.7).Please make sure you have set the CUDA_HOME correctly",
                   "library-abi-error pytorch required_by=11.7 version=12.1");
  check_everywhere("torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 clients joined.",
                   "nccl-error c10d message=1/2 clients joined timeout_s=901");
  check_everywhere("torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError", "nccl-error c10d");
  check_everywhere("RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.0.0.1]:12345",
                   "nccl-error gloo error=Connection closed by peer peer=[10.0.0.1]:12345");
  check_everywhere("RuntimeError: [/opt/gloo/gloo/transport/tcp/pair.cc:445] Timed out waiting 1800000ms for recv operation to complete",
                   "nccl-error gloo error=Timed out waiting 1800000ms for recv operation timeout_ms=1800000");
  check_everywhere("torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 63.98 GiB",
                   "cuda-oom pytorch gpu=0 requested=2.00 GiB");
  check_everywhere("OSError: [Errno 28] No space left on device: '/dev/shm/wnsm_3f2a'", "shm-error python segment=/dev/shm/wnsm_3f2a");
  check_none("OSError: [Errno 28] No space left on device: '/data/ckpt/model.safetensors'");
  CHECK(event_of("trainer-1  | exited with code 137") == "container-exited docker signal=9 exit_code=137");
  CHECK(event_of("trainer-1 exited with code 137") == "container-exited docker signal=9 exit_code=137");
  CHECK(event_of("Terminated") == "shell-reported-death shell signal=15");
  check_everywhere("deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: Installed CUDA version 11.8 does not match the version torch was compiled with 12.1, unable to compile cuda/cpp extensions without a matching cuda version.",
                   "library-abi-error deepspeed required_by=12.1 version=11.8");
  check_none("Installed CUDA version 11.7 does not match the version torch was compiled with 11.8 but since the APIs are compatible, accepting this combination");
  check_everywhere("RuntimeError: Cuda extensions are being compiled with a version of Cuda that does not match the version used to compile Pytorch binaries.  Pytorch binaries were compiled with Cuda 11.8.",
                   "library-abi-error apex");
  check_everywhere("RuntimeError: CUDA Setup failed despite GPU being available. Please run the following command to get more information:",
                   "library-abi-error bitsandbytes");
  check_everywhere("node1:1234:1290 [0] include/alloc.h:103 NCCL WARN Cuda failure 'out of memory'", "cuda-oom nccl library=nccl");
  check_everywhere("RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 804: forward compatibility was attempted on non supported HW",
                   "cuda-driver-too-old cuda");
  check_everywhere("   [[ Forward compatibility was attempted on non supported HW (error 804) ]]", "cuda-driver-too-old cuda");
}

TEST_CASE("line event families: PBS's and LSF's words for a job they ended") {
  check_everywhere("=>> PBS: job killed: walltime 3611 exceeded limit 3600", "scheduler-cancel pbs cause=3611 exceeded limit 3600 reason=time-limit");
  check_everywhere("=>> PBS: job killed: mem 270gb exceeded limit 256gb", "scheduler-memory-kill pbs signal=9 limit=256gb usage=270gb");
  check_everywhere("PBS: job killed: mem job total 270 gb exceeded limit 256 gb", "scheduler-memory-kill pbs signal=9 limit=256 gb usage=270 gb");
  check_everywhere("TERM_MEMLIMIT: job killed after reaching LSF memory usage limit.", "scheduler-memory-kill lsf signal=9");
  check_everywhere("TERM_RUNLIMIT: job killed after reaching LSF run time limit.", "scheduler-cancel lsf reason=time-limit");
  check_everywhere("TERM_OWNER: job killed by owner.", "scheduler-cancel lsf reason=cancelled");
  check_none("#PBS -l walltime=24:00:00");
  check_everywhere("Job has gone over memory limit of 2048 megabytes. Peak usage: 4096 megabytes.",
                   "scheduler-memory-kill htcondor signal=9 limit=2048 megabytes usage=4096 megabytes");
  check_everywhere("Error from slot1_3@e327.chtc.wisc.edu: Docker job has gone over memory limit of 16384 Mb",
                   "scheduler-memory-kill htcondor signal=9 limit=16384 Mb");
  check_everywhere("job 1234.1 exceeded hard wallclock time - initiate terminate method", "scheduler-cancel sge job=1234.1 reason=time-limit");
  check_everywhere("Dec 17 16:03:58Z worker-1 start-worker 2024/12/17 16:03:58 GCP Metadata Service says termination is imminent",
                   "scheduler-cancel cloud reason=preemption");
  check_none("We expect the instance was preemptible.");
}

TEST_CASE("line event families: other accelerators' and frameworks' out-of-memory errors, and hosted notebooks' restarts") {
  check_everywhere("RuntimeError: MPS backend out of memory (MPS allocated: 17.36 GB, other allocations: 613.56 MB, max allowed: 18.13 GB). Tried to allocate 192.00 MB on private pool.",
                   "cuda-oom pytorch requested=192.00 MB");
  check_everywhere("torch.OutOfMemoryError: XPU out of memory. Tried to allocate 2.00 GiB", "cuda-oom pytorch requested=2.00 GiB");
  check_everywhere("RuntimeError: NPU out of memory. Tried to allocate 1.50 GiB (NPU 0; 60.97 GiB total capacity)", "cuda-oom pytorch requested=1.50 GiB");
  check_everywhere("tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[8,1024,4096] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc",
                   "cuda-oom tensorflow gpu=0");
  check_everywhere("ResourceExhaustedError: OOM when allocating tensor with shape[100000,100000] and type float on /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu",
                   "host-memory-error tensorflow");
  check_everywhere("jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 2147483648 bytes.",
                   "cuda-oom xla requested=2147483648");
  check_everywhere("OSError: [WinError 1455] The paging file is too small for this operation to complete. Error loading \"C:\\venv\\lib\\site-packages\\torch\\lib\\shm.dll\" or one of its dependencies.",
                   "host-memory-error windows");
  check_everywhere("Your session crashed after using all available RAM.", "oomd-kill colab signal=9");
  check_everywhere("ray.memory_monitor.RayOutOfMemoryError: More than 95% of the memory on node tr001 is used (59.62 / 62.75 GB). The top 10 memory consumers are:",
                   "oomd-kill ray memory_total=62.75 memory_used=59.62 node=tr001 threshold=95");
  check_everywhere("node08:27106:27302 [0] include/shm.h:27 NCCL WARN Call to shm_open failed : Permission denied", "shm-error nccl error=Permission denied");
  check_everywhere("RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 803: system has unsupported display driver / cuda driver combination",
                   "driver-module-mismatch cuda");
  // NGC containers' start-up banner quotes CUDA's error strings capitalised.
  check_everywhere("   [[ System has unsupported display driver / cuda driver combination (error 803) ]]", "driver-module-mismatch cuda");
  check_everywhere("Unable to determine the device handle for GPU0000:03:00.0: Unknown Error", "gpu-lost nvml pci=0000:03:00.0");
  check_everywhere("node1:1234:1290 [0] misc/socket.cc:484 NCCL WARN Net : Connect to 10.0.0.2<43215> failed : Connection refused",
                   "nccl-error nccl message=Connect to 10.0.0.2<43215> failed : Connection refused");
  check_everywhere("node1:1234:1290 [0] NCCL WARN Call to ibv_create_qp failed", "nccl-error nccl message=Call to ibv_create_qp failed");
  check_none("node1:1234:1290 [0] NCCL INFO NET/IB : No device found.");
  check_none("node1:1234:1290 [0] NCCL WARN NET/IB : No device found.");
  check_everywhere("RuntimeError: NCCL Error 2: unhandled system error", "nccl-error nccl code=2 error=unhandled system error");
  check_everywhere("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.",
                   "cuda-oom vllm");
  check_everywhere("OSError: [WinError 126] The specified module could not be found. Error loading \"C:\\Python310\\lib\\site-packages\\torch\\lib\\c10.dll\" or one of its dependencies.",
                   "library-abi-error windows library=C:\\Python310\\lib\\site-packages\\torch\\lib\\c10.dll");
  check_everywhere("ImportError: DLL load failed while importing _C: The specified procedure could not be found.",
                   "library-abi-error windows exception=ImportError library=_C");
  check_everywhere("Process finished with exit code -1073740791 (0xC0000409)", "native-crash windows signal=6");
  check_everywhere("numpy.core._exceptions.MemoryError: Unable to allocate 7.45 GiB for an array with shape (1000, 1000000) and data type float64",
                   "host-memory-error numpy requested=7.45 GiB");
  check_everywhere("Your notebook tried to allocate more memory than is available. It has restarted.", "oomd-kill kaggle signal=9");
  check_none("State:          Terminated");
}

TEST_CASE("line event families: glibc and C++ runtime aborts") {
  check_everywhere("free(): invalid pointer", "memory-corruption glibc signal=6 error=invalid pointer function=free");
  check_everywhere("free(): double free detected in tcache 2", "memory-corruption glibc signal=6 error=double free detected in tcache 2 function=free");
  check_everywhere("malloc(): corrupted top size", "memory-corruption glibc signal=6 error=corrupted top size function=malloc");
  check_everywhere("munmap_chunk(): invalid pointer", "memory-corruption glibc signal=6 error=invalid pointer function=munmap_chunk");
  check_everywhere("double free or corruption (out)", "memory-corruption glibc signal=6 error=double free or corruption where=out");
  check_everywhere("double free or corruption (!prev)", "memory-corruption glibc signal=6 error=double free or corruption where=!prev");
  check_everywhere("corrupted size vs. prev_size", "memory-corruption glibc signal=6 error=corrupted size vs. prev_size");
  check_everywhere("*** Error in `python': double free or corruption (fasttop): 0x00007f5d203fc2b0 ***",
                   "memory-corruption glibc signal=6 error=double free or corruption (fasttop) program=python");
  check_everywhere("*** stack smashing detected ***: terminated", "memory-corruption glibc signal=6 error=stack smashing");
  check_everywhere("terminate called after throwing an instance of 'c10::DistBackendError'",
                   "cpp-terminate cpp-runtime signal=6 exception=c10::DistBackendError");
  check_everywhere("terminate called after throwing an instance of 'std::bad_alloc'", "host-memory-error cpp-runtime signal=6");
  check_everywhere("terminate called without an active exception", "cpp-terminate cpp-runtime signal=6 exception=without an active exception");
  // glibc's assert/assert.c: "prog: file:line: function: Assertion `expr' failed."
  check_everywhere("python: /opt/ds/ops/csrc/aio/common/deepspeed_aio_common.cpp:125: int _do_io_complete(long long int, long long int): "
                   "Assertion `n_completes >= min_completes' failed.",
                   "native-assert glibc signal=6 error=n_completes >= min_completes file=/opt/ds/ops/csrc/aio/common/deepspeed_aio_common.cpp "
                   "function=int _do_io_complete(long long int, long long int) line=125 program=python");
  check_everywhere("test_fused: csrc/kernels.cu:88: void launch(int): Assertion `n > 0' failed.",
                   "native-assert glibc signal=6 error=n > 0 file=csrc/kernels.cu function=void launch(int) line=88 program=test_fused");
  check_none("Assertion `x' failed in my notes, not a program's");
  CHECK(event_of("======= Backtrace: =========") == "memory-corruption glibc signal=6 error=glibc's abort backtrace (its message cut off)");
  CHECK(event_of(".../python2.7/site-packages/torch/lib/libTH.so.1(THFloatStorage_free+0x6e)[0x7fdbd517f4ae]") ==
        "native-frame glibc address=7fdbd517f4ae function=THFloatStorage_free library=.../python2.7/site-packages/torch/lib/libTH.so.1 offset=6e");
  check_none("_int_free(): called from a debugger script");
  check_none("def free(): return None");
}

TEST_CASE("line event families: CUDA errors") {
  check_everywhere("RuntimeError: CUDA out of memory. Tried to allocate 21.06 GiB (GPU 3; 79.35 GiB total capacity; 63.19 GiB already allocated)",
                   "cuda-oom pytorch gpu=3 requested=21.06 GiB");
  check_everywhere("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 6.81 MiB is free.",
                   "cuda-oom pytorch gpu=0 requested=2.00 GiB");
  check_everywhere("torch.cuda.OutOfMemoryError: CUDA out of memory", "cuda-oom pytorch");
  check_everywhere("RuntimeError: CUDA error: out of memory", "cuda-oom pytorch");
  check_everywhere("RuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/THCCachingAllocator.cpp:510", "cuda-oom pytorch");
  check_everywhere("RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`", "cuda-oom cuda library=cublas");
  check_everywhere("RuntimeError: CUDA error: an illegal memory access was encountered", "cuda-illegal-address cuda");
  check_everywhere("RuntimeError: CUDA error: uncorrectable ECC error encountered", "cuda-ecc-error cuda");
  check_everywhere("RuntimeError: CUDA error: no kernel image is available for execution on the device", "cuda-no-kernel-image cuda");
  check_everywhere("NVIDIA H100 80GB HBM3 with CUDA capability sm_90 is not compatible with the current PyTorch installation.",
                   "cuda-no-kernel-image pytorch capability=sm_90");
  check_everywhere("RuntimeError: CUDA error: device-side assert triggered", "cuda-device-assert cuda");
  check_everywhere("torch.AcceleratorError: CUDA error: unspecified launch failure", "cuda-error cuda error=unspecified launch failure");
  check_everywhere("UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 11080). Please update your GPU driver",
                   "cuda-driver-too-old pytorch driver_version=11080");
  check_everywhere("RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version", "cuda-driver-too-old cuda");
  check_everywhere("the provided PTX was compiled with an unsupported toolchain.", "cuda-unsupported-ptx cuda");
  check_none("{'loss': 0.95, 'error_rate': 0.12, 'epoch': 1.0}");
  check_none("step 100: loss 2.31, eval error 0.4");
}

TEST_CASE("line event families: NCCL errors and watchdog timeouts") {
  check_everywhere("[E ProcessGroupNCCL.cpp:523] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=28956, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600058 milliseconds before timing out.",
                   "nccl-error nccl rank=0 op=ALLREDUCE ran_ms=600058 seq=28956 timeout_ms=600000 work=WorkNCCL(SeqNum=28956, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000)");
  // torch 1.x: no rank in the message, no Timeout(ms) field.
  check_everywhere("Watchdog caught collective operation timeout: WorkNCCL(SeqNum=16349, OpType=ALLGATHER) ran for 1800341 milliseconds before timing out.",
                   "nccl-error nccl op=ALLGATHER ran_ms=1800341 seq=16349 work=WorkNCCL(SeqNum=16349, OpType=ALLGATHER)");
  check_everywhere("[E ProcessGroupNCCL.cpp:537] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels",
                   "nccl-error nccl");
  check_everywhere("ncclUnhandledCudaError: Call to CUDA function failed.",
                   "nccl-error nccl error=ncclUnhandledCudaError message=Call to CUDA function failed.");
  check_everywhere("ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.",
                   "nccl-error nccl error=ncclSystemError message=System call (e.g. socket, malloc) or external library call failed or device error.");
  check_everywhere("Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.20.5",
                   "nccl-error nccl error=remote process exited or there was a network error nccl_version=2.20.5");
  check_everywhere("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:219, unhandled system error",
                   "nccl-error nccl error=unhandled system error where=../torch/csrc/distributed/c10d/NCCLUtils.hpp:219");
  check_none("node1:1234:1234 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>");
}

TEST_CASE("line event families: DataLoader workers and shared memory") {
  check_everywhere("RuntimeError: DataLoader worker (pid 629) is killed by signal: Killed.", "worker-died pytorch-dataloader pid=629 signal=9");
  check_everywhere("RuntimeError: DataLoader worker (pid 729) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.",
                   "worker-died pytorch-dataloader pid=729 signal=7");
  check_everywhere("RuntimeError: unable to write to file </torch_739_144252761_4>: No space left on device (28)",
                   "shm-error pytorch segment=739_144252761_4");
  check_everywhere("RuntimeError: unable to open shared memory object </torch_40276_1919178829_2> in read-write mode: Too many open files (24)",
                   "shm-error pytorch error=Too many open files (24) segment=40276_1919178829_2");
  check_everywhere("RuntimeError: unable to mmap 1048576 bytes from file </torch_40276_1919178829>: Cannot allocate memory (12)",
                   "shm-error pytorch error=Cannot allocate memory (12) segment=40276_1919178829 size=1048576");
}

TEST_CASE("line event families: shell reports in the shell's language, as glibc's and bash's translations print them") {
  CHECK(event_of("已杀死") == "shell-reported-death shell signal=9");
  CHECK(event_of("[rank0]: 已杀死") == "shell-reported-death shell signal=9");
  CHECK(event_of("段错误 (核心已转储)") == "shell-reported-death shell signal=11");
  CHECK(event_of("段错误（核心已转储）") == "shell-reported-death shell signal=11");
  CHECK(event_of("总线错误 (核心已转储)") == "shell-reported-death shell signal=7");
  CHECK(event_of("已放弃 (核心已转储)") == "shell-reported-death shell signal=6");
  CHECK(event_of("強制終了") == "shell-reported-death shell signal=9");
  CHECK(event_of("Убито") == "shell-reported-death shell signal=9");
  CHECK(event_of("Speicherzugriffsfehler (Speicherabzug geschrieben)") == "shell-reported-death shell signal=11");
  CHECK(event_of("Erreur de segmentation (core dumped)") == "shell-reported-death shell signal=11");
  CHECK(event_of("Terminado (killed)") == "shell-reported-death shell signal=9");
  CHECK(event_of("Falha de segmentação (imagem do núcleo gravada)") == "shell-reported-death shell signal=11");
  // Inside a sentence, never.
  check_none("进程已杀死了三个子进程");
  check_none("Der Prozess wurde Getötet, sagt das Log");
}

TEST_CASE("line event families: CPython's recursion limit and the frames it counts") {
  CHECK(event_of("RecursionError: maximum recursion depth exceeded while calling a Python object") == "stack-overflow python");
  CHECK(event_of("RuntimeError: maximum recursion depth exceeded in comparison") == "stack-overflow python");
  CHECK(event_of("  [Previous line repeated 996 more times]") == "stack-overflow python");
  check_none("  [Previous line repeated 2 more times]");
  check_none("  [Previous line repeated 96 more times]");
}

TEST_CASE("line event families: shell reports alone on a line, and sentences that only say Killed") {
  CHECK(event_of("Killed") == "shell-reported-death shell signal=9");
  CHECK(event_of("Killed\r") == "shell-reported-death shell signal=9");
  CHECK(event_of("[rank0]: Killed") == "shell-reported-death shell signal=9");
  CHECK(event_of("[default0]:Killed") == "shell-reported-death shell signal=9");
  CHECK(event_of("2024-05-08T08:47:31.123456789Z Killed") == "shell-reported-death shell signal=9");
  CHECK(event_of(" 25% 1999/8000 [1:02:25<3:07:25,  1.87s/it, loss=0.296]Killed") == "shell-reported-death shell signal=9");
  CHECK(event_of("Loading checkpoint shards:  14%|\xe2\x96\x88\xe2\x96\x8d  | 1/7 [00:13<01:22, 13.68s/it]\rKilled") ==
        "shell-reported-death shell signal=9");
  CHECK(event_of(std::string("Killed\0", 7)) == "shell-reported-death shell signal=9");
  CHECK(event_of("./run.sh: line 3:  1234 Killed                  python train.py") ==
        "shell-reported-death bash pid=1234 signal=9 command=python train.py");
  CHECK(event_of("Segmentation fault (core dumped)") == "shell-reported-death shell signal=11 core=core dumped");
  CHECK(event_of("Bus error (core dumped)") == "shell-reported-death shell signal=7 core=core dumped");
  CHECK(event_of("Aborted (core dumped)") == "shell-reported-death shell signal=6 core=core dumped");
  CHECK(event_of("Illegal instruction") == "shell-reported-death shell signal=4");
  CHECK(event_of("Process finished with exit code 137 (interrupted by signal 9: SIGKILL)") == "shell-reported-death ide signal=9");
  // systemd's unit lines, with the unit's name (the journal) and without it (`journalctl -u UNIT -o cat`).
  CHECK(event_of("train.service: A process of this unit has been killed by the OOM killer.") == "unit-oom systemd signal=9 unit=train.service");
  CHECK(event_of("A process of this unit has been killed by the OOM killer.") == "unit-oom systemd signal=9");
  CHECK(event_of("Failed with result 'oom-kill'.") == "unit-oom systemd signal=9");
  CHECK(event_of("Process finished with exit code 139 (interrupted by signal 11: SIGSEGV)") == "shell-reported-death ide signal=11");
  for (const char* line : {
           "Killed 3 stale processes",
           "Process was Killed",
           "The worker got Killed",
           "This line mentions Killed processes and exit code 137 but is a comment.",
           "Killed workers are restarted automatically",
           "mutants: Killed: 40, Survived: 2",
           "RuntimeError: DataLoader worker (pid 1) is killed by signal: Killed",  // no period: not torch's wording
           "Segmentation fault handler installed",
           "print('Aborted by user')",
           "{'loss': 0.3, 'bus error count': 0}",
       }) {
    check_none(line);
  }
}

TEST_CASE("line event families: Slurm") {
  check_everywhere("slurmstepd: error: Detected 1 oom-kill event(s) in StepId=125757.batch. Some of your processes may have been killed by the cgroup out-of-memory handler.",
                   "scheduler-oom slurm count=1 job=125757 step=125757.batch");
  check_everywhere("slurmstepd: error: *** JOB 123 ON node7 CANCELLED AT 2024-05-08T08:47:31 DUE TO TIME LIMIT ***",
                   "scheduler-cancel slurm job=123 node=node7 reason=time-limit time=2024-05-08T08:47:31");
  CHECK(event_of("srun: error: gpu12: task 3: Killed") == "scheduler-task-died slurm signal=9 rank=3 node=gpu12");
}

TEST_CASE("line event families: Kubernetes and Docker") {
  check_everywhere("    reason: OOMKilled", "container-oom kubernetes signal=9");
  check_everywhere("Pod failed: PodPattern matched: containers: - name: app reason: OOMKilled message: \"x\"", "container-oom kubernetes signal=9");
  check_everywhere("        exitCode: 137", "container-exited kubernetes signal=9 exit_code=137");
  check_everywhere("      Exit Code:    143", "container-exited kubernetes exit_code=143");
  check_everywhere("    \"ExitCode\": 137,", "container-exited docker signal=9 exit_code=137");
  check_everywhere("Message:          The node was low on resource: memory. ", "eviction kubernetes resource=memory");
  CHECK(event_of("  Warning  Evicted              109s  kubelet                                Pod ephemeral local storage usage exceeds the total limit of containers 5Gi.") ==
        "eviction kubernetes limit=5Gi resource=ephemeral-storage");
  CHECK(event_of("  Warning  Evicted  2m  kubelet  The node had condition: [DiskPressure].") ==
        "eviction kubernetes message=The node had condition: [DiskPressure].");
  check_everywhere("Container trainer exceeded its local ephemeral storage limit \"1Gi\". ",
                   "eviction kubernetes container=trainer limit=1Gi resource=ephemeral-storage");
  check_none("      Exit Code:    0");
  check_none("Evicted entries from the cache: 3");
  check_none("exitcode: 0 (pid: 12)");
}

TEST_CASE("line event families: kernel lines are left to the kernel-log parser") {
  for (const char* line : {
           "[ 1234.567890] Memory cgroup out of memory: Killed process 629 (onmt_train) total-vm:14119556kB, anon-rss:6538204kB",
           "[Sun Nov 29 07:48:27 2026] Out of memory: Killed process 21120 (python3.11) total-vm:1000kB",
           "May  8 08:47:31 node1 kernel: python3.11[21181]: segfault at 0 ip 00007f6d1c4a3b2d sp 00007ffd error 4 in libc.so.6",
           "[ 99.1] traps: python[123] general protection fault ip:7f0 sp:7ff error:0 in libtorch.so[7f0+100]",
           "[ 77.0] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus.",
           "[ 77.0] oom_reaper: reaped process 629 (onmt_train), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB",
           "[ 12.3] Call Trace:",
           "[ 12.3]  ? __schedule+0x2e4/0x770",
       }) {
    check_none(line);
  }
}
