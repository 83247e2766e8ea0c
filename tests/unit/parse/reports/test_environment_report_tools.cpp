// Reports of the tools around torch: ds_report with its dotted padding and op
// table, nvidia-smi's table and -q, -L, pip and conda lists, free.
#include <doctest/doctest.h>

#include "environment_report_checks.h"
#include "environment_report_fixtures.h"
#include "parse/reports/environment_report.h"

using namespace ftdiag;
using namespace ftdiag::testing;
using parse::parse_environment_report;

TEST_CASE("environment report: ds_report states torch, DeepSpeed's build, nvcc, /dev/shm and the prebuilt ops") {
  const auto values = parse_environment_report(kDsReport);
  CHECK(stated(values, "package.torch") == "2.0.1+cu118");
  CHECK(stated(values, "torch.cuda_version") == "11.8");
  CHECK(stated(values, "torch.hip_version") == "(none)");  // "None"
  CHECK(stated(values, "cuda.toolkit_version") == "12.1");
  CHECK(stated(values, "package.deepspeed") == "0.9.2");
  CHECK(stated(values, "deepspeed.built_torch_release") == "1.13");
  CHECK(stated(values, "deepspeed.built_cuda_version") == "11.7");
  CHECK(stated_line(values, "deepspeed.built_cuda_version") == 28);
  CHECK(stated(values, "host.shm_total_bytes") == std::to_string(static_cast<std::uint64_t>(31.27 * (1ull << 30) + 0.5)));
  CHECK(stated(values, "deepspeed.installed_ops") == "cpu_adam,fused_adam");
  CHECK(stated_line(values, "deepspeed.installed_ops") == 12);  // the table's header
}

TEST_CASE("environment report: ds_report whose ops are all compiled at run time") {
  const auto values = parse_environment_report(
      "op name ................ installed .. compatible\n"
      "cpu_adam ............... [NO] ....... [OKAY]\n"
      "fused_adam ............. [NO] ....... [OKAY]\n");
  REQUIRE(count_of(values, "deepspeed.installed_ops") == 1);
  CHECK(stated(values, "deepspeed.installed_ops").empty());
}

TEST_CASE("environment report: nvidia-smi's table states the driver, its CUDA, each GPU and its memory") {
  const auto values = parse_environment_report(kNvidiaSmi);
  CHECK(stated(values, "gpu.driver_version") == "535.54.03");
  CHECK(stated(values, "gpu.driver_cuda_version") == "12.2");
  CHECK(stated_line(values, "gpu.driver_cuda_version") == 3);
  CHECK(stated(values, "gpu.0.name") == "NVIDIA A100-SXM4-80GB");
  CHECK(stated(values, "gpu.1.name") == "NVIDIA A100-SXM4-80GB");
  CHECK(stated(values, "gpu.0.memory_bytes") == std::to_string(81920ull << 20));
  CHECK(stated_line(values, "gpu.1.memory_bytes") == 14);
  CHECK(stated(values, "gpu.count") == "2");
  CHECK(stated(values, "gpu.12345.name") == "(none)");  // the process table is no GPU row
}

TEST_CASE("environment report: an older nvidia-smi with truncated names, -q and -L") {
  const auto old = parse_environment_report(
      "| NVIDIA-SMI 470.57.02    Driver Version: 470.57.02    CUDA Version: 11.4     |\n"
      "|-------------------------------+----------------------+----------------------+\n"
      "|   0  Tesla V100-SXM2...  On   | 00000000:00:1E.0 Off |                    0 |\n"
      "| N/A   34C    P0    23W / 300W |      0MiB / 16160MiB |      0%      Default |\n");
  CHECK(stated(old, "gpu.driver_cuda_version") == "11.4");
  CHECK(stated(old, "gpu.0.name") == "Tesla V100-SXM2...");
  CHECK(stated(old, "gpu.0.memory_bytes") == std::to_string(16160ull << 20));
  const auto query = parse_environment_report(
      "==============NVSMI LOG==============\n\n"
      "Driver Version                            : 550.54.15\n"
      "CUDA Version                              : 12.4\n");
  CHECK(stated(query, "gpu.driver_version") == "550.54.15");
  CHECK(stated(query, "gpu.driver_cuda_version") == "12.4");
  const auto listed = parse_environment_report(
      "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-5a3b0000-0000-0000-0000-000000000000)\n"
      "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-5a3b0000-0000-0000-0000-000000000001)\n");
  CHECK(stated(listed, "gpu.1.name") == "NVIDIA H100 80GB HBM3");
  CHECK(stated(listed, "gpu.count") == "2");
}

TEST_CASE("environment report: a CUDA version without the driver's beside it is not the driver's") {
  const auto values = parse_environment_report("CUDA Version: 11.8\nsome other line\nmore\nmore\nDriver Version: 520.56.06\n");
  CHECK(stated(values, "gpu.driver_cuda_version") == "(none)");
  CHECK(stated(values, "gpu.driver_version") == "520.56.06");
}

TEST_CASE("environment report: pip freeze keeps the packages that matter, names normalised") {
  const auto values = parse_environment_report(kPipFreeze);
  CHECK(stated(values, "package.accelerate") == "0.24.1");
  CHECK(stated(values, "package.bitsandbytes") == "0.41.1");
  CHECK(stated(values, "package.flash-attn") == "2.3.3");
  CHECK(stated(values, "package.torch") == "2.1.0+cu118");
  CHECK(stated(values, "package.torch-scatter") == "2.1.2+pt21cu118");
  CHECK(stated_line(values, "package.torch-scatter") == 8);
  CHECK(stated(values, "package.requests") == "(none)");
  CHECK(stated(values, "package.peft") == "(none)");  // installed from a folder: no version
}

TEST_CASE("environment report: pip list, conda list, install commands and a hand-made list") {
  const auto pip_list = parse_environment_report(
      "Package                  Version\n"
      "------------------------ -----------\n"
      "deepspeed                0.14.0\n"
      "peft                     0.10.0      /home/user/src/peft\n"
      "torch                    2.2.1\n");
  CHECK(stated(pip_list, "package.deepspeed") == "0.14.0");
  CHECK(stated(pip_list, "package.peft") == "0.10.0");
  const auto conda = parse_environment_report(
      "# Name                    Version                   Build  Channel\n"
      "python                    3.10.13              h955ad1f_0\n"
      "pytorch                   2.1.0           py3.10_cuda12.1_cudnn8.9.2_0    pytorch\n");
  CHECK(stated(conda, "python.version") == "3.10.13");
  CHECK(stated(conda, "package.torch") == "2.1.0");
  CHECK(stated(conda, "torch.cuda_version") == "12.1");
  const auto commands = parse_environment_report(
      "conda install pytorch==1.12.0 torchvision==0.13.0 cudatoolkit=11.3 -c pytorch\n"
      "pip install transformers==4.31.0\n");
  CHECK(stated(commands, "package.torch") == "1.12.0");
  CHECK(stated(commands, "package.cudatoolkit") == "11.3");
  CHECK(stated(commands, "package.transformers") == "4.31.0");
  const auto typed = parse_environment_report(
      "macos\npython                            3.7\ntransformers                  4.20.1\ntorch                               1.12.0\n"
      "torch-scatter.                 2.0.9\n");
  CHECK(stated(typed, "python.version") == "3.7");
  CHECK(stated(typed, "package.torch") == "1.12.0");
  CHECK(stated(typed, "package.torch-scatter") == "2.0.9");
}

TEST_CASE("environment report: free's sizes with units, or with the command that says them") {
  const auto human = parse_environment_report(
      "               total        used        free      shared  buff/cache   available\n"
      "Mem:           503Gi        20Gi       400Gi       1.0Gi        83Gi       480Gi\n"
      "Swap:             0B          0B          0B\n");
  CHECK(stated(human, "host.mem_total_bytes") == std::to_string(503ull << 30));
  CHECK(stated(human, "host.swap_total_bytes") == "0");
  const auto gibibytes = parse_environment_report(
      "$ free -g\n"
      "              total        used        free      shared  buff/cache   available\n"
      "Mem:            251          10         200           0          40         239\n"
      "Swap:             8           0           8\n");
  CHECK(stated(gibibytes, "host.mem_total_bytes") == std::to_string(251ull << 30));
  CHECK(stated(gibibytes, "host.swap_total_bytes") == std::to_string(8ull << 30));
  // Plain numbers without the command: GiB or MiB cannot be told apart.
  const auto unknown = parse_environment_report(
      "              total        used        free      shared  buff/cache   available\n"
      "Mem:            251          10         200           0          40         239\n");
  CHECK(stated(unknown, "host.mem_total_bytes") == "(none)");
}
