// The GPU probe's output read back (parse/probes/gpu_probe_output.h): a full
// inventory, what may be left out, what is refused (garbage, wrong types,
// more devices or processes than the bounds), and --watch sample lines.
#include <string>

#include <doctest/doctest.h>

#include "parse/probes/gpu_probe_output.h"

using namespace ftdiag;
using namespace ftdiag::parse;

namespace {

// As the probe prints it on a machine with two GPUs (one line there).
constexpr std::string_view kFullInventory = R"json({
  "libcuda": "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
  "libnvml": "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1",
  "cuda_driver_version": 12020, "cuda_init_result": 0, "driver_version": "535.104.05",
  "devices": [
    {"index": 0, "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-5a3b2c1d-0000-1111-2222-333344445555",
     "pci_bus_id": "0000:17:00.0", "compute_capability": "9.0", "memory_total_bytes": 85520809984,
     "memory_used_bytes": 81604378624, "ecc_uncorrected": 2, "ecc_corrected": 17,
     "processes": [{"pid": 4242, "used_bytes": 40802189312}, {"pid": 4243, "used_bytes": 40802189312}]},
    {"index": 1, "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-6b4c3d2e-0000-1111-2222-333344445555",
     "pci_bus_id": "0000:2a:00.0", "compute_capability": "9.0", "memory_total_bytes": 85520809984,
     "memory_used_bytes": 524288, "processes": []}
  ],
  "problems": ["nvmlDeviceGetTotalEccErrors failed for NVML device 1: nvmlReturn 999 (Unknown Error)"]
})json";

std::string with_processes(std::size_t count) {
  std::string list;
  for (std::size_t i = 0; i < count; ++i) list += (i ? "," : "") + std::string(R"({"pid":1,"used_bytes":1})");
  return R"({"devices":[{"index":0,"processes":[)" + list + "]}]}";
}

std::string with_devices(std::size_t count) {
  std::string list;
  for (std::size_t i = 0; i < count; ++i) list += (i ? "," : "") + std::string(R"({"index":0})");
  return R"({"devices":[)" + list + "]}";
}

void check_unparseable(std::string_view text, std::string_view detail_part = "") {
  CAPTURE(text);
  const auto inventory = parse_gpu_inventory(text);
  REQUIRE_FALSE(inventory);
  CHECK(inventory.missing().reason == MissingReason::unparseable);
  CHECK(inventory.missing().detail.find(detail_part) != std::string::npos);
}

}  // namespace

TEST_CASE("parse_gpu_inventory: a full document") {
  const auto inventory = parse_gpu_inventory(kFullInventory);
  REQUIRE(inventory);
  CHECK(inventory->probed == Fact<bool>(true));
  CHECK(inventory->command.empty());
  CHECK(inventory->libcuda == "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  CHECK(inventory->libnvml == "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1");
  CHECK(inventory->cuda_driver_version == 12020);
  CHECK(inventory->cuda_init_result == 0);
  CHECK(inventory->driver_version == "535.104.05");
  REQUIRE(inventory->devices.size() == 2);
  const auto& first = inventory->devices[0];
  CHECK(first.index == 0);
  CHECK(first.name == "NVIDIA H100 80GB HBM3");
  CHECK(first.uuid == "GPU-5a3b2c1d-0000-1111-2222-333344445555");
  CHECK(first.pci_bus_id == "0000:17:00.0");
  CHECK(first.compute_capability == "9.0");
  CHECK(first.memory_total == 85520809984ULL);
  CHECK(first.memory_used == 81604378624ULL);
  CHECK(first.ecc_uncorrected == 2u);
  CHECK(first.ecc_corrected == 17u);
  CHECK(first.processes == std::vector<model::GpuProcessUse>{{4242, 40802189312ULL}, {4243, 40802189312ULL}});
  const auto& second = inventory->devices[1];
  CHECK(second.index == 1);
  CHECK_FALSE(second.ecc_uncorrected.has_value());
  CHECK(second.processes.empty());
  REQUIRE(inventory->problems.size() == 1);
  CHECK(inventory->problems[0].starts_with("nvmlDeviceGetTotalEccErrors failed"));
}

TEST_CASE("parse_gpu_inventory: what the probe leaves out stays empty") {
  SUBCASE("no driver at all") {
    const auto inventory = parse_gpu_inventory(
        R"json({"libcuda":"","libnvml":"","driver_version":"","devices":[],)json"
        R"json("problems":["libcuda.so.1: could not be loaded (x)"]})json");
    REQUIRE(inventory);
    CHECK(inventory->libcuda.empty());
    CHECK_FALSE(inventory->cuda_driver_version.has_value());
    CHECK_FALSE(inventory->cuda_init_result.has_value());
    CHECK(inventory->devices.empty());
    CHECK(inventory->problems.size() == 1);
  }
  SUBCASE("a device with only its index") {
    const auto inventory = parse_gpu_inventory(R"({"devices":[{"index":3}]})");
    REQUIRE(inventory);
    REQUIRE(inventory->devices.size() == 1);
    CHECK(inventory->devices[0] == model::GpuDevice{.index = 3});
    CHECK(inventory->problems.empty());
  }
  SUBCASE("a process whose memory NVML cannot see") {
    const auto inventory = parse_gpu_inventory(R"({"devices":[{"index":0,"processes":[{"pid":7}]}]})");
    REQUIRE(inventory);
    CHECK(inventory->devices[0].processes == std::vector<model::GpuProcessUse>{{7, std::nullopt}});
  }
  SUBCASE("keys of a later probe are ignored") {
    const auto inventory = parse_gpu_inventory(R"({"devices":[{"index":0,"clocks":{"sm":1980}}],"future":[1]})");
    REQUIRE(inventory);
    CHECK(inventory->devices.size() == 1);
  }
}

TEST_CASE("parse_gpu_inventory: keys that must be there") {
  check_unparseable(R"({"libcuda":"","problems":[]})", "devices: expected present");
  check_unparseable(R"({"devices":[{"name":"x"}]})", "devices[0].index: expected present");
  check_unparseable(R"({"devices":[{"index":0,"processes":[{"used_bytes":5}]}]})",
                    "devices[0].processes[0].pid: expected present");
}

TEST_CASE("parse_gpu_inventory: a key of the wrong type is named") {
  check_unparseable(R"({"devices":{}})", "devices: expected an array");
  check_unparseable(R"({"devices":[],"libcuda":5})", "libcuda: expected a string");
  check_unparseable(R"({"devices":[{"index":0,"memory_used_bytes":-1}]})", "devices[0].memory_used_bytes");
  check_unparseable(R"({"devices":[{"index":0,"memory_used_bytes":1.5}]})", "devices[0].memory_used_bytes");
  check_unparseable(R"({"devices":[{"index":-1}]})", "devices[0].index");
  check_unparseable(R"({"devices":[{"index":0,"processes":[{"pid":0}]}]})", "pid");
  check_unparseable(R"({"devices":[{"index":0,"processes":[{"pid":4294967296}]}]})", "pid");
  check_unparseable(R"({"devices":[],"cuda_driver_version":"12.1"})", "cuda_driver_version");
  check_unparseable(R"({"devices":[],"cuda_init_result":18446744073709551615})", "cuda_init_result");
  check_unparseable(R"({"devices":[],"problems":[1]})", "problems[0]");
  check_unparseable(R"({"devices":[7]})", "devices[0]: expected an object");
}

TEST_CASE("parse_gpu_inventory: garbage") {
  for (std::string_view text : {"", " ", "{", "null", "[]", "[1,2]", "\"devices\"", "\xff\xfe", "{\"devices\":[]}x",
                                "ftdiag-gpu-probe: calling cuInit\n", "{\"devices\":[],\"libcuda\":\"\xff\"}"}) {
    check_unparseable(text);
  }
}

TEST_CASE("parse_gpu_inventory: more than the bounds allow is refused") {
  CHECK(parse_gpu_inventory(with_devices(kMaxGpuDevices)));
  check_unparseable(with_devices(kMaxGpuDevices + 1), "more than 64 devices");
  CHECK(parse_gpu_inventory(with_processes(kMaxGpuProcesses)));
  check_unparseable(with_processes(kMaxGpuProcesses + 1), "more than 4096 processes");
  check_unparseable(std::string(100000, '[') + std::string(100000, ']'), "nested deeper");
  // Brackets inside strings are text, not nesting.
  CHECK(parse_gpu_inventory(R"({"devices":[],"problems":[")" + std::string(100, '[') + "\"]}"));
}

TEST_CASE("parse_gpu_sample_line: a --watch line") {
  const auto sample = parse_gpu_sample_line(
      R"({"time":1796139991.643115,"devices":[{"index":0,"memory_used_bytes":1073741824,)"
      R"("processes":[{"pid":100,"used_bytes":2000}]},{"index":1,"processes":[]}]})");
  REQUIRE(sample);
  CHECK(sample->time == doctest::Approx(1796139991.643115));
  REQUIRE(sample->devices.size() == 2);
  CHECK(sample->devices[0].index == 0);
  CHECK(sample->devices[0].used == 1073741824ULL);
  CHECK(sample->devices[0].processes == std::vector<model::GpuProcessUse>{{100, 2000}});
  CHECK(sample->devices[1].index == 1);
  CHECK_FALSE(sample->devices[1].used.has_value());
}

TEST_CASE("parse_gpu_sample_line: what is not a sample") {
  for (std::string_view line : {"", "{}", R"({"devices":[]})", R"({"time":1})", R"({"time":"now","devices":[]})",
                                R"({"time":1,"devices":[{"memory_used_bytes":1}]})",
                                R"({"time":1,"devices":[{"index":0,"memory_used_bytes":-5}]})",
                                R"({"libcuda":"","devices":[]})", "garbage"}) {
    CAPTURE(line);
    CHECK_FALSE(parse_gpu_sample_line(line));
  }
  CHECK_FALSE(parse_gpu_sample_line(R"({"time":1,"devices":[)" + std::string(1000, '[') + "]}"));
  CHECK(parse_gpu_sample_line(R"({"time":1,)" + with_processes(kMaxGpuProcesses).substr(1)));
  CHECK_FALSE(parse_gpu_sample_line(R"({"time":1,)" + with_processes(kMaxGpuProcesses + 1).substr(1)));
}
