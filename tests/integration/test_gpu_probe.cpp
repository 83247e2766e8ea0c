// The real GPU probe (probes/gpu) run by collect::probe_gpus, on fake driver
// libraries (tests/gpu_fakes: libcuda.so.1 and libnvidia-ml.so.1 answering
// from FAKE_* variables): a healthy driver with two GPUs, CUDA_VISIBLE_DEVICES,
// a cuInit that crashes or hangs (ftdiag's call still returns, with the
// reason), a missing libcuda or no driver at all, and --watch.
#include <chrono>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include <doctest/doctest.h>

#include "collect/helpers/gpu_probe.h"
#include "collect/helpers/helper_program.h"

namespace ftdiag::itest {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using collect::GpuProbeRequest;
using collect::HelperResult;
using Environment = std::map<std::string, std::string>;

const fs::path kFakes = FTDIAG_GPU_FAKES_DIR;
const fs::path kProbe = FTDIAG_GPU_PROBE;

// The fakes, with CUDA_VISIBLE_DEVICES pinned (the machine running the tests
// may set it), and `settings` over them.
Environment fake_driver(const Environment& settings) {
  Environment environment{{"FTDIAG_LIBCUDA", (kFakes / "libcuda.so.1").string()},
                          {"FTDIAG_LIBNVML", (kFakes / "libnvidia-ml.so.1").string()},
                          {"CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7"}};
  for (const auto& [name, value] : settings) environment[name] = value;
  return environment;
}

model::GpuInventory probe(const Environment& settings, std::chrono::milliseconds deadline = 20s) {
  GpuProbeRequest request;
  request.probe = kProbe;
  request.environment = fake_driver(settings);
  request.deadline = deadline;
  return collect::probe_gpus(request);
}

bool has_problem(const model::GpuInventory& inventory, std::string_view part) {
  for (const auto& problem : inventory.problems) {
    if (problem.find(part) != std::string::npos) return true;
  }
  return false;
}

// "GPU-" and the fake's UUID bytes for physical GPU `gpu` (fake_gpus.h).
std::string fake_uuid(int gpu) {
  char text[64];
  unsigned char b[16];
  for (int k = 0; k < 16; ++k) b[k] = static_cast<unsigned char>(0x10 * k + gpu);
  std::snprintf(text, sizeof text, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return text;
}

HelperResult run_probe_command(std::vector<std::string> argv, const Environment& settings,
                               std::chrono::milliseconds deadline) {
  collect::HelperRequest request;
  request.argv = std::move(argv);
  request.environment = std::vector<std::string>{"PATH=/usr/bin:/bin"};
  for (const auto& [name, value] : fake_driver(settings)) request.environment->push_back(name + "=" + value);
  request.deadline = deadline;
  return collect::run_helper(request);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("gpu_probe: driver 12.1 with two GPUs, processes on the first") {
  const auto inventory = probe({{"FAKE_GPU_COUNT", "2"},
                                {"FAKE_CUDA_DRIVER_VERSION", "12010"},
                                {"FAKE_NVML_DRIVER_VERSION", "530.30.02"},
                                {"FAKE_GPU_NAME", "NVIDIA A100-SXM4-80GB"},
                                {"FAKE_GPU_CC", "8.0"},
                                {"FAKE_GPU_MEMORY_TOTAL", "85899345920"},
                                {"FAKE_GPU_MEMORY_USED", "42949672960"},
                                {"FAKE_GPU_PROCESSES", "4242:21474836480,4243:10737418240"},
                                {"FAKE_GPU_ECC_UNCORRECTED", "3"}});
  INFO("probed: ", inventory.probed ? "yes" : inventory.probed.missing().detail);
  REQUIRE(inventory.probed);
  CHECK(inventory.command.find(kProbe.string()) != std::string::npos);
  CHECK(inventory.libcuda == (kFakes / "libcuda.so.1").string());
  CHECK(inventory.libnvml == (kFakes / "libnvidia-ml.so.1").string());
  CHECK(inventory.cuda_driver_version == 12010);
  CHECK(inventory.cuda_init_result == 0);
  CHECK(inventory.driver_version == "530.30.02");
  CHECK(inventory.problems.empty());
  REQUIRE(inventory.devices.size() == 2);
  for (int i = 0; i < 2; ++i) {
    const auto& device = inventory.devices[static_cast<std::size_t>(i)];
    CAPTURE(i);
    CHECK(device.index == i);
    CHECK(device.name == "NVIDIA A100-SXM4-80GB");
    CHECK(device.uuid == fake_uuid(i));
    CHECK(device.compute_capability == "8.0");
    CHECK(device.memory_total == 85899345920ULL);
    CHECK(device.memory_used == 42949672960ULL);
    CHECK(device.ecc_uncorrected == 3u);
    CHECK(device.ecc_corrected == 0u);
  }
  // CUDA writes "0000:3B:00.0", NVML "00000000:3B:00.0": one form.
  CHECK(inventory.devices[0].pci_bus_id == "0000:3b:00.0");
  CHECK(inventory.devices[1].pci_bus_id == "0000:3c:00.0");
  CHECK(inventory.devices[0].processes ==
        std::vector<model::GpuProcessUse>{{4242, 21474836480ULL}, {4243, 10737418240ULL}});
  CHECK(inventory.devices[1].processes.empty());
}

TEST_CASE("gpu_probe: CUDA's order under CUDA_VISIBLE_DEVICES, matched to NVML's GPU by UUID") {
  const auto inventory =
      probe({{"FAKE_GPU_COUNT", "2"}, {"CUDA_VISIBLE_DEVICES", "1"}, {"FAKE_GPU_PROCESSES", "77:1000"}});
  REQUIRE(inventory.probed);
  REQUIRE(inventory.devices.size() == 1);
  CHECK(inventory.devices[0].index == 0);  // CUDA's ordinal, as the job sees it
  CHECK(inventory.devices[0].uuid == fake_uuid(1));
  CHECK(inventory.devices[0].pci_bus_id == "0000:3c:00.0");
  CHECK(inventory.devices[0].processes.empty());  // the processes are on physical GPU 0
}

TEST_CASE("gpu_probe: a cuInit that segfaults costs the probe, not ftdiag") {
  const auto inventory = probe({{"FAKE_CUDA_INIT", "segv"}});
  REQUIRE_FALSE(inventory.probed);
  CHECK(inventory.probed.missing().reason == MissingReason::failed);
  const auto& detail = inventory.probed.missing().detail;
  CHECK(detail.find("SIGSEGV") != std::string::npos);
  CHECK(detail.find("while calling cuInit") != std::string::npos);
  CHECK(inventory.devices.empty());
}

TEST_CASE("gpu_probe: a cuInit that hangs times out at the deadline") {
  const auto started = std::chrono::steady_clock::now();
  const auto inventory = probe({{"FAKE_CUDA_INIT", "hang"}}, 1s);
  const auto took = std::chrono::steady_clock::now() - started;
  REQUIRE_FALSE(inventory.probed);
  CHECK(inventory.probed.missing().reason == MissingReason::timed_out);
  CHECK(inventory.probed.missing().detail.find("while calling cuInit") != std::string::npos);
  CHECK(took < 5s);
}

TEST_CASE("gpu_probe: cuInit fails, NVML still lists the GPUs") {
  const auto inventory = probe({{"FAKE_CUDA_INIT", "error:100"}, {"FAKE_GPU_COUNT", "2"}});
  REQUIRE(inventory.probed);
  CHECK(inventory.cuda_driver_version == 12010);  // asked before cuInit
  CHECK(inventory.cuda_init_result == 100);
  CHECK(has_problem(inventory, "cuInit failed: CUresult 100"));
  REQUIRE(inventory.devices.size() == 2);
  CHECK(inventory.devices[1].index == 1);
  CHECK(inventory.devices[1].uuid == fake_uuid(1));
  CHECK(inventory.devices[1].compute_capability.empty());  // only CUDA says
}

TEST_CASE("gpu_probe: without libcuda, NVML's data and the problem listed") {
  const auto inventory = probe({{"FTDIAG_LIBCUDA", "/nonexistent/libcuda.so.1"}, {"FAKE_GPU_PROCESSES", "9:512"}});
  REQUIRE(inventory.probed);
  CHECK(inventory.libcuda.empty());
  CHECK_FALSE(inventory.cuda_driver_version.has_value());
  CHECK_FALSE(inventory.cuda_init_result.has_value());
  CHECK(has_problem(inventory, "/nonexistent/libcuda.so.1: could not be loaded"));
  CHECK(inventory.driver_version == "530.30.02");
  REQUIRE(inventory.devices.size() == 1);
  CHECK(inventory.devices[0].uuid == fake_uuid(0));
  CHECK(inventory.devices[0].memory_total == 80ULL << 30);
  CHECK(inventory.devices[0].processes == std::vector<model::GpuProcessUse>{{9, 512}});
}

TEST_CASE("gpu_probe: no driver at all is an answer, not a failure") {
  const auto inventory =
      probe({{"FTDIAG_LIBCUDA", "/nonexistent/libcuda.so.1"}, {"FTDIAG_LIBNVML", "/nonexistent/libnvidia-ml.so.1"}});
  REQUIRE(inventory.probed);
  CHECK(inventory.devices.empty());
  CHECK(has_problem(inventory, "/nonexistent/libcuda.so.1: could not be loaded"));
  CHECK(has_problem(inventory, "/nonexistent/libnvidia-ml.so.1: could not be loaded"));
}

TEST_CASE("gpu_probe: NVML that fails to initialise, ECC not supported, processes through the v1 call") {
  SUBCASE("nvmlInit_v2 fails") {
    const auto inventory = probe({{"FAKE_NVML_INIT", "error:9"}});
    REQUIRE(inventory.probed);
    CHECK(has_problem(inventory, "nvmlInit_v2 failed: nvmlReturn 9 (Driver Not Loaded)"));
    CHECK(inventory.libnvml.empty());
    REQUIRE(inventory.devices.size() == 1);  // CUDA's
    CHECK_FALSE(inventory.devices[0].memory_used.has_value());
  }
  SUBCASE("ECC not supported is left out, not a problem") {
    const auto inventory = probe({{"FAKE_GPU_ECC_UNCORRECTED", "unsupported"}});
    REQUIRE(inventory.probed);
    REQUIRE(inventory.devices.size() == 1);
    CHECK_FALSE(inventory.devices[0].ecc_uncorrected.has_value());
    CHECK(inventory.problems.empty());
  }
  SUBCASE("a driver whose _v2 process list answers FUNCTION_NOT_FOUND") {
    const auto inventory = probe({{"FAKE_NVML_PROCESS_API", "v1"}, {"FAKE_GPU_PROCESSES", "5:50,6:60"}});
    REQUIRE(inventory.probed);
    REQUIRE(inventory.devices.size() == 1);
    CHECK(inventory.devices[0].processes == std::vector<model::GpuProcessUse>{{5, 50}, {6, 60}});
  }
}

TEST_CASE("gpu_probe: a probe that is missing, fails or prints no inventory") {
  GpuProbeRequest request;
  request.deadline = 10s;
  request.probe = "/nonexistent/ftdiag-gpu-probe";
  auto inventory = collect::probe_gpus(request);
  REQUIRE_FALSE(inventory.probed);
  CHECK(inventory.probed.missing().reason == MissingReason::failed);
  CHECK(inventory.probed.missing().detail.find("could not start") != std::string::npos);

  request.probe = "/bin/false";
  inventory = collect::probe_gpus(request);
  REQUIRE_FALSE(inventory.probed);
  CHECK(inventory.probed.missing().detail.find("exited with code 1") != std::string::npos);

  request.probe = "/bin/true";
  inventory = collect::probe_gpus(request);
  REQUIRE_FALSE(inventory.probed);
  CHECK(inventory.probed.missing().reason == MissingReason::unparseable);
}

TEST_CASE("gpu_probe: --watch prints the inventory, then samples") {
  const auto result = run_probe_command({kProbe.string(), "--watch", "100"},
                                        {{"FAKE_GPU_COUNT", "2"}, {"FAKE_GPU_PROCESSES", "4242:2048"}}, 1500ms);
  // It runs until its parent or its stdout goes: here, the deadline.
  CHECK(result.ending == HelperResult::Ending::timed_out);
  const auto lines = lines_of(result.output);
  REQUIRE(lines.size() >= 3);
  const auto inventory = parse::parse_gpu_inventory(lines[0]);
  REQUIRE(inventory);
  CHECK(inventory->devices.size() == 2);
  double previous = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    CAPTURE(lines[i]);
    const auto sample = parse::parse_gpu_sample_line(lines[i]);
    REQUIRE(sample);
    CHECK(sample->time > previous);
    previous = sample->time;
    REQUIRE(sample->devices.size() == 2);
    CHECK(sample->devices[0].index == 0);
    CHECK(sample->devices[0].used == 1ULL << 30);
    CHECK(sample->devices[0].processes == std::vector<model::GpuProcessUse>{{4242, 2048}});
    CHECK(sample->devices[1].index == 1);
  }
}

TEST_CASE("gpu_probe: --watch ends when its stdout closes, and when its parent dies") {
  const auto probe_command = kProbe.string() + " --watch 20";
  SUBCASE("stdout closes") {
    // head leaves after 3 lines; the shell waits for the probe, which only
    // ends on its EPIPE.
    const auto result = run_probe_command({"/bin/sh", "-c", probe_command + " | head -n 3"}, {}, 10s);
    CHECK(result.succeeded());
    CHECK(lines_of(result.output).size() == 3);
  }
  SUBCASE("parent dies") {
    // The shell starts it and exits at once; the probe, holding the pipe,
    // must notice and leave for the call to return before the deadline.
    const auto result = run_probe_command({"/bin/sh", "-c", probe_command + " & sleep 0.3"}, {}, 10s);
    CHECK(result.succeeded());
    CHECK(result.seconds < 5);
  }
}

}  // namespace ftdiag::itest
