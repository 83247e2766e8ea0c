// The reports Python tools print for bug reports: torch's collect_env (1.13
// and 2.x), accelerate env, transformers env, and the same labels typed by hand.
#include <doctest/doctest.h>

#include "environment_report_checks.h"
#include "environment_report_fixtures.h"
#include "parse/reports/environment_report.h"

using namespace ftdiag;
using namespace ftdiag::testing;
using parse::parse_environment_report;

TEST_CASE("environment report: collect_env of torch 2.1 states torch, its CUDA, the driver and both GPUs") {
  const auto values = parse_environment_report(kCollectEnvTorch21);
  CHECK(stated(values, "package.torch") == "2.1.0+cu121");
  CHECK(stated_line(values, "package.torch") == 2);
  CHECK(stated(values, "torch.cuda_version") == "12.1");
  CHECK(stated_line(values, "torch.cuda_version") == 4);
  CHECK(stated(values, "torch.hip_version") == "(none)");  // "N/A"
  CHECK(stated(values, "torch.cuda_available") == "true");
  CHECK(stated(values, "host.os") == "Ubuntu 22.04.3 LTS (x86_64)");
  CHECK(stated(values, "python.version") == "3.10.12");
  CHECK(stated(values, "host.kernel") == "5.15.0-88-generic");
  CHECK(stated(values, "cuda.toolkit_version") == "12.1.105");
  CHECK(stated(values, "gpu.0.name") == "NVIDIA A100-SXM4-80GB");
  CHECK(stated(values, "gpu.1.name") == "NVIDIA A100-SXM4-80GB");
  CHECK(stated(values, "gpu.count") == "2");
  CHECK(stated_line(values, "gpu.count") == 19);
  CHECK(stated(values, "gpu.driver_version") == "535.104.05");
  CHECK(stated_line(values, "gpu.driver_version") == 22);
  CHECK(stated(values, "package.numpy") == "1.24.4");
  CHECK(stated(values, "package.triton") == "2.1.0");
  CHECK(count_of(values, "package.torch") == 1);  // "[pip3] torch==2.1.0+cu121" says the same
  CHECK(count_of(values, "gpu.count") == 1);
}

TEST_CASE("environment report: collect_env of torch 1.13 with one GPU on the label's line and conda's packages") {
  const auto values = parse_environment_report(kCollectEnvTorch113);
  CHECK(stated(values, "package.torch") == "1.13.1");
  CHECK(stated(values, "torch.cuda_version") == "11.7");
  CHECK(stated(values, "python.version") == "3.9.16");
  CHECK(stated(values, "gpu.0.name") == "NVIDIA A100-SXM4-40GB");
  CHECK(stated(values, "gpu.count") == "1");
  CHECK(stated(values, "gpu.driver_version") == "515.65.01");
  CHECK(stated(values, "package.pytorch-cuda") == "11.7");
  CHECK(stated(values, "package.numpy") == "1.23.5");
  CHECK(count_of(values, "torch.cuda_version") == 1);  // conda's build string says 11.7 too
}

TEST_CASE("environment report: accelerate env states torch, CUDA's availability, RAM in GiB and the GPU") {
  const auto values = parse_environment_report(kAccelerateEnv);
  CHECK(stated(values, "package.accelerate") == "0.27.2");
  CHECK(stated(values, "host.platform") == "Linux-5.15.0-1058-aws-x86_64-with-glibc2.31");
  CHECK(stated(values, "host.kernel") == "5.15.0-1058-aws");
  CHECK(stated(values, "python.version") == "3.10.14");
  CHECK(stated(values, "package.numpy") == "1.26.4");
  CHECK(stated(values, "package.torch") == "2.2.0");
  CHECK(stated(values, "torch.cuda_available") == "true");
  // accelerate divides by 1024^3 and prints "GB".
  CHECK(stated(values, "host.mem_total_bytes") == std::to_string(static_cast<std::uint64_t>(186.70 * (1ull << 30) + 0.5)));
  CHECK(stated(values, "gpu.0.name") == "NVIDIA A10G");
  CHECK(stated_line(values, "gpu.0.name") == 13);
  CHECK(stated(values, "gpu.count") == "(none)");  // the first GPU's name says nothing of how many
}

TEST_CASE("environment report: transformers env states its packages and skips those not installed") {
  const auto values = parse_environment_report(kTransformersEnv);
  CHECK(stated(values, "package.transformers") == "4.36.2");
  CHECK(stated(values, "package.huggingface-hub") == "0.20.1");
  CHECK(stated(values, "package.safetensors") == "0.4.1");
  CHECK(stated(values, "package.accelerate") == "0.25.0");
  CHECK(stated(values, "package.torch") == "2.1.2+cu118");
  CHECK(stated(values, "package.tensorflow") == "(none)");
  CHECK(stated(values, "package.jax") == "(none)");
  CHECK(stated(values, "python.version") == "3.11.5");
}

TEST_CASE("environment report: the size of /dev/shm from df, docker's --shm-size and a sentence; never a file in it") {
  CHECK(stated(parse_environment_report("Filesystem      Size  Used Avail Use% Mounted on\n"
                                        "overlay         1.8T  1.2T  530G  70% /\n"
                                        "shm              64M     0   64M   0% /dev/shm\n"),
               "host.shm_total_bytes") == std::to_string(64ull << 20));
  CHECK(stated(parse_environment_report("docker run --gpus all --shm-size=16g -it pytorch/pytorch bash\n"), "host.shm_total_bytes") ==
        std::to_string(16ull << 30));
  CHECK(stated(parse_environment_report("I am using a docker container with --ipc=host, so I have /dev/shm space of 254GB.\n"),
               "host.shm_total_bytes") == std::to_string(254ull << 30));
  CHECK(stated(parse_environment_report("NCCL WARN Error while creating shared memory segment /dev/shm/nccl-NFq5Ss (size 9637888)\n"),
               "host.shm_total_bytes") == "(none)");
  CHECK(stated(parse_environment_report("the job wrote to /dev/shm 3 times\n"), "host.shm_total_bytes") == "(none)");
}

TEST_CASE("environment report: labels typed by hand, a Markdown list and sentences") {
  const auto values = parse_environment_report(
      "### Environment\n"
      "- GPUs: 2x NVIDIA RTX A6000, 47.536 GB memory each\n"
      "- Python: 3.12\n"
      "- PyTorch: 2.8.0+cu128\n"
      "- CUDA: 8.6 (Toolkit 12.8)\n"
      "- Transformers: 4.56.2\n"
      "Node type - single node 56GB Memory, 1GPU.\n"
      "deepspeed version 0.9.2\n");
  CHECK(stated(values, "gpu.count") == "2");
  CHECK(stated(values, "gpu.1.name") == "NVIDIA RTX A6000");
  CHECK(stated(values, "gpu.0.memory_bytes") == std::to_string(static_cast<std::uint64_t>(47.536 * (1ull << 30) + 0.5)));
  CHECK(stated(values, "python.version") == "3.12");
  CHECK(stated(values, "package.torch") == "2.8.0+cu128");
  CHECK(stated(values, "package.transformers") == "4.56.2");
  CHECK(stated(values, "host.mem_total_bytes") == std::to_string(56ull << 30));
  CHECK(stated_line(values, "host.mem_total_bytes") == 7);
  CHECK(stated(values, "package.deepspeed") == "0.9.2");
  // "CUDA: 8.6" is a compute capability there: an unlabelled CUDA is not read.
  CHECK(stated(values, "torch.cuda_version") == "(none)");
  CHECK(stated(values, "cuda.toolkit_version") == "(none)");
}

TEST_CASE("environment report: a hardware note in Chinese punctuation") {
  const auto values = parse_environment_report("The hardware settings\xEF\xBC\x9A\nRAM\xEF\xBC\x9A" "251G\n4GPUs \xEF\xBC\x9A" "A100*40G\n");
  CHECK(stated(values, "host.mem_total_bytes") == std::to_string(251ull << 30));
  CHECK(stated(values, "gpu.count") == "4");
}

TEST_CASE("environment report: torch's JIT folder names torch's CUDA and Python, DeepSpeed's start-up line its version") {
  const auto values = parse_environment_report(
      "Using /home/ubuntu/.cache/torch_extensions/py38_cu111 as PyTorch extensions root...\n"
      "[2023-12-12 10:42:54,556] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version=0.12.4, git-hash=unknown, git-branch=unknown\n");
  CHECK(stated(values, "torch.cuda_version") == "11.1");
  CHECK(stated(values, "python.version") == "3.8");
  CHECK(stated(values, "package.deepspeed") == "0.12.4");
  CHECK(stated_line(values, "package.deepspeed") == 2);
  CHECK(stated(parse_environment_report("Using /root/.cache/torch_extensions/py311_cpu as PyTorch extensions root...\n"), "torch.cuda_version") == "(none)");
}
