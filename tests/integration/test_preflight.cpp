// `ftdiag preflight` end to end, and the same facts explaining a crash under
// `ftdiag run` and `ftdiag analyze`: the real ftdiag binary, the real GPU
// probe on the fake driver libraries (tests/gpu_fakes), a Python installation
// from files (Debian's python3 with a fake torch 2.7.0+cu128 site-packages
// tree ahead on PYTHONPATH: tests/fixtures/python/torch-cu128), and Debian's
// real CPU torch.
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include <doctest/doctest.h>

#include "harness.h"
#include "skip.h"

namespace ftdiag::itest {
namespace {

const fs::path kFakes = FTDIAG_GPU_FAKES_DIR;
const fs::path kPythonFixtures = FTDIAG_PYTHON_FIXTURES_DIR;

using Environment = std::map<std::string, std::optional<std::string>>;

// A node whose driver is R530 (CUDA 12.1) with two H100s, and a Python whose
// torch is the cu128 wheel: the seed scenario.
Environment seed_node(Environment more = {}) {
  Environment env{{"FTDIAG_LIBCUDA", (kFakes / "libcuda.so.1").string()},
                  {"FTDIAG_LIBNVML", (kFakes / "libnvidia-ml.so.1").string()},
                  {"CUDA_VISIBLE_DEVICES", std::nullopt},
                  {"FAKE_CUDA_DRIVER_VERSION", "12010"},
                  {"FAKE_NVML_DRIVER_VERSION", "530.30.02"},
                  {"FAKE_GPU_COUNT", "2"},
                  {"FAKE_GPU_NAME", "NVIDIA H100 80GB HBM3"},
                  {"FAKE_GPU_CC", "9.0"},
                  {"PYTHONPATH", (kPythonFixtures / "torch-cu128").string()},
                  {"LD_LIBRARY_PATH", std::nullopt}};
  for (auto& [name, value] : more) env[name] = value;
  return env;
}

Outcome preflight(const std::vector<std::string>& options, const Environment& env, const std::vector<std::string>& command = {}) {
  Launch launch{{ftdiag_binary().string(), "preflight"}};
  launch.argv.insert(launch.argv.end(), options.begin(), options.end());
  if (!command.empty()) {
    launch.argv.push_back("--");
    launch.argv.insert(launch.argv.end(), command.begin(), command.end());
  }
  launch.env = env;
  return run(launch, 60);
}

json parsed(const Outcome& outcome) {
  INFO("stderr: ", outcome.err);
  auto report = json::parse(outcome.out, nullptr, false);
  REQUIRE_MESSAGE(report.is_object(), outcome.out.substr(0, 2000));
  return report;
}

// The check finding of `rule`, or null.
json check_of(json& report, const std::string& rule) {
  for (auto& check : report["checks"]) {
    if (check["rule"] == rule) return check;
  }
  return nullptr;
}

std::string rules_fired(json& report) {
  std::string out;
  for (auto& check : report["checks"]) out += check["rule"].get<std::string>() + " ";
  return out;
}

std::string all_remediation(json& finding) {
  std::string out;
  for (auto& step : finding["remediation"]) out += step.get<std::string>() + "\n";
  return out;
}

bool output_contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("preflight: torch built for CUDA 12.8 on a driver of CUDA 12.1 is named, with the cu121 build as the fix") {
  const auto outcome = preflight({"--format", "json"}, seed_node(), {kDebianPython, "train.py"});
  CHECK_MESSAGE(outcome.exited_with(1), outcome.describe());
  auto report = parsed(outcome);
  INFO("checks: ", rules_fired(report));
  auto mismatch = check_of(report, "cuda-build-newer-minor-than-driver");
  REQUIRE(mismatch.is_object());
  CHECK(mismatch["cause"] == "cuda-driver-mismatch");
  CHECK(mismatch["severity"] == "warning");
  const std::string summary = mismatch["summary"];
  CHECK(output_contains(summary, "2.7.0+cu128"));
  CHECK(output_contains(summary, "CUDA 12.8"));
  CHECK(output_contains(summary, "12.1"));
  CHECK(output_contains(all_remediation(mismatch), "download.pytorch.org/whl/cu121"));
  CHECK(output_contains(all_remediation(mismatch), "570.26"));  // the driver of CUDA 12.8, from the table
  // The fixture's flash-attn links CUDA 11's runtime beside a CUDA 12 torch.
  auto extension = check_of(report, "extension-links-another-cuda");
  REQUIRE(extension.is_object());
  CHECK(output_contains(extension["summary"].get<std::string>(), "libcudart.so.11.0"));
  CHECK(extension["severity"] == "error");
  // DeepSpeed built for torch 2.1 with prebuilt ops; bitsandbytes with only a cu118 library.
  CHECK(check_of(report, "deepspeed-built-for-another-torch").is_object());
  CHECK(check_of(report, "bitsandbytes-lacks-torchs-cuda").is_object());
  // The evidence carries what was read: the probe's two GPUs and the fixture's torch.
  auto& host = report["evidence"]["hosts"][0];
  CHECK(host["gpu"]["cuda_driver_version"] == 12010);
  CHECK(host["gpu"]["driver_version"] == "530.30.02");
  CHECK(host["gpu"]["devices"].size() == 2);
  bool torch_found = false;
  for (auto& package : host["python"]["packages"]) {
    if (package["name"] == "torch") {
      torch_found = true;
      CHECK(package["version"] == "2.7.0+cu128");
    }
  }
  CHECK(torch_found);
  CHECK_FALSE(report.contains("verdict"));
}

TEST_CASE("preflight: the text report gives the mismatch in one line and its fix") {
  const auto outcome = preflight({}, seed_node(), {kDebianPython, "train.py"});
  CHECK_MESSAGE(outcome.exited_with(1), outcome.describe());
  INFO(outcome.out);
  CHECK(output_contains(outcome.out, "WARNING torch is built for a newer CUDA minor version than the driver supports [cuda-driver-mismatch]"));
  CHECK(output_contains(outcome.out, "fix:  Install the torch build for this driver: pip install torch --index-url https://download.pytorch.org/whl/cu121"));
  CHECK(output_contains(outcome.out, "ERROR   an extension links another major CUDA runtime than torch"));
}

// The text with wrapped lines joined and runs of spaces (a table's padding) as one.
std::string squeezed(const std::string& text) {
  std::string out;
  for (const char c : joined(text)) {
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out += c;
  }
  return out;
}

TEST_CASE("preflight: the text report first lists what it read and where, as collect_env does") {
  const auto outcome = preflight({}, seed_node(), {kDebianPython, "train.py"});
  INFO(outcome.out);
  const auto text = squeezed(outcome.out);
  CHECK(outcome.out.rfind("ftdiag preflight read:\n", 0) == 0);
  CHECK(output_contains(text, "Python 3."));
  CHECK(output_contains(text, kDebianPython + std::string(" (the command)")));
  CHECK(output_contains(text, "torch 2.7.0+cu128, built for CUDA 12.8, in " + (kPythonFixtures / "torch-cu128").string()));
  CHECK(output_contains(text, "GPU driver 530.30.02, supports CUDA 12.1"));
  CHECK(output_contains(text, "GPUs 2 x NVIDIA H100 80GB HBM3"));
  CHECK(output_contains(text, "configs launch-command (the command after --)"));
  // The checks follow what was read.
  CHECK(outcome.out.find("ftdiag preflight read:") < outcome.out.find("ftdiag preflight: "));
}

TEST_CASE("preflight: a build a major CUDA version beyond the driver is an error, with the wheel line the driver runs") {
  const auto outcome = preflight({"--format", "json"},
                                 seed_node({{"FAKE_CUDA_DRIVER_VERSION", "11040"}, {"FAKE_NVML_DRIVER_VERSION", "470.82.01"}}),
                                 {kDebianPython, "train.py"});
  CHECK_MESSAGE(outcome.exited_with(1), outcome.describe());
  auto report = parsed(outcome);
  INFO("checks: ", rules_fired(report));
  auto mismatch = check_of(report, "cuda-build-needs-newer-major-driver");
  REQUIRE(mismatch.is_object());
  CHECK(mismatch["severity"] == "error");
  CHECK(output_contains(all_remediation(mismatch), "whl/cu118"));
  CHECK(output_contains(all_remediation(mismatch), "570.26"));
  CHECK(check_of(report, "cuda-build-newer-minor-than-driver").is_null());
}

TEST_CASE("preflight: a driver whose cuInit crashes is reported, and preflight goes on") {
  const auto outcome = preflight({"--format", "json"}, seed_node({{"FAKE_CUDA_INIT", "segv"}}), {kDebianPython, "train.py"});
  CHECK_MESSAGE(outcome.exited_with(1), outcome.describe());
  auto report = parsed(outcome);
  INFO("checks: ", rules_fired(report));
  auto failed = check_of(report, "gpu-probe-failed");
  REQUIRE(failed.is_object());
  CHECK(failed["severity"] == "error");
  CHECK(output_contains(failed["summary"].get<std::string>(), "SIGSEGV"));
  // The Python side was still read.
  CHECK(check_of(report, "extension-links-another-cuda").is_object());
}

TEST_CASE("preflight: a driver that hangs is given up on at the deadline") {
  const auto outcome = preflight({"--format", "json", "--gpu-timeout", "1"}, seed_node({{"FAKE_CUDA_INIT", "hang"}}),
                                 {kDebianPython, "train.py"});
  CHECK_MESSAGE(outcome.exited_with(1), outcome.describe());
  auto report = parsed(outcome);
  auto failed = check_of(report, "gpu-probe-failed");
  REQUIRE(failed.is_object());
  CHECK(output_contains(failed["summary"].get<std::string>(), "did not answer within 1.0 s"));
}

TEST_CASE("preflight: Debian's CPU torch without a GPU driver has no CUDA finding") {
  Environment env{{"FTDIAG_LIBCUDA", "/nonexistent/libcuda.so.1"},
                  {"FTDIAG_LIBNVML", "/nonexistent/libnvidia-ml.so.1"},
                  {"PYTHONPATH", std::nullopt},
                  {"LD_LIBRARY_PATH", std::nullopt}};
  const auto outcome = preflight({"--format", "json", "--python", kDebianPython}, env);
  REQUIRE_MESSAGE((outcome.exited_with(0) || outcome.exited_with(1)), outcome.describe());
  auto report = parsed(outcome);
  INFO("checks: ", rules_fired(report));
  for (auto& check : report["checks"]) {
    CHECK(check["cause"] != "cuda-driver-mismatch");
    CHECK(check["cause"] != "library-abi-mismatch");
  }
  auto& python = report["evidence"]["hosts"][0]["python"];
  CHECK(python["interpreter"] == kDebianPython);
  bool cpu_torch = false;
  for (auto& package : python["packages"]) {
    if (package["name"] == "torch") cpu_torch = package["build"]["cpu_only"] == "true";
  }
  CHECK(cpu_torch);
}

TEST_CASE("preflight: --save-environment writes what analyze reads from a run folder") {
  TempDir tmp;
  const auto file = tmp / "environment.json";
  const auto outcome = preflight({"--save-environment", file.string()}, seed_node(), {kDebianPython, "train.py"});
  CHECK_MESSAGE(outcome.exited_with(1), outcome.describe());
  CHECK(output_contains(outcome.out, "cu121"));  // still printed
  auto saved = json::parse(read_text(file), nullptr, false);
  REQUIRE(saved.is_object());
  CHECK(saved["gpu"]["cuda_driver_version"] == 12010);
  CHECK(saved["command"] == json::array({kDebianPython, "train.py"}));
}

namespace {

// Llama-2-7b-hf's config.json (6.74 B parameters).
constexpr const char* kLlama2_7bConfig = R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
  "hidden_size": 4096, "intermediate_size": 11008, "num_attention_heads": 32, "num_hidden_layers": 32,
  "num_key_value_heads": 32, "vocab_size": 32000, "max_position_embeddings": 4096, "rms_norm_eps": 1e-05,
  "tie_word_embeddings": false, "torch_dtype": "float16", "hidden_act": "silu"})";

std::uint64_t mem_total_bytes() {
  const auto text = read_text("/proc/meminfo");
  return static_cast<std::uint64_t>(std::stoull(text.substr(text.find("MemTotal:") + 9))) * 1024;
}

}  // namespace

TEST_CASE("preflight: ZeRO-2 on 8 ranks of a 7B model: the checkpoint save will need more host RAM than this node has") {
  TempDir tmp;
  fs::create_directories(tmp / "model");
  write_text(tmp / "model" / "config.json", kLlama2_7bConfig);
  write_text(tmp / "ds_z2.json", R"({"bf16": {"enabled": true}, "zero_optimization": {"stage": 2, "overlap_comm": true}})");
  const std::vector<std::string> command{"deepspeed", "--num_gpus", "8", "train.py", "--deepspeed", (tmp / "ds_z2.json").string()};
  const std::vector<std::string> inputs{"--deepspeed", (tmp / "ds_z2.json").string(), "--model", (tmp / "model").string()};
  // The same inputs, asked of `ftdiag estimate`: the two front doors must agree.
  std::vector<std::string> estimate_argv{ftdiag_binary().string(), "estimate", "--no-gpu", "--gpus-per-node", "8", "--format", "json"};
  estimate_argv.insert(estimate_argv.end(), inputs.begin(), inputs.end());
  const auto estimated = run(Launch{estimate_argv}, 60);
  REQUIRE_MESSAGE(estimated.exited_with(0), estimated.describe());
  const auto estimate = json::parse(estimated.out);
  const auto save_peak = estimate["per_node_host"]["checkpoint_save_peak_bytes"].get<std::uint64_t>();
  // 8 ranks x 4 GiB + 8 x 2 B x 6.74 B + a 5 GB shard.
  CHECK(save_peak == 8ULL * 4 * (1ULL << 30) + 8ULL * 2 * 6738415616ULL + 5000000000ULL);
  if (save_peak <= mem_total_bytes()) FTDIAG_SKIP("this node has more RAM than the save needs: the check cannot fire here");

  std::vector<std::string> options{"--format", "json"};
  options.insert(options.end(), inputs.begin(), inputs.end());
  const auto outcome = preflight(options, seed_node(), command);
  CHECK_MESSAGE(outcome.exited_with(1), outcome.describe());
  auto report = parsed(outcome);
  INFO("checks: ", rules_fired(report));
  auto check = check_of(report, "checkpoint-save-will-not-fit");
  REQUIRE_MESSAGE(check.is_object(), rules_fired(report));
  CHECK(check["severity"] == "error");
  CHECK(check["cause"] == "host-oom-checkpoint-save");
  const auto summary = check["summary"].get<std::string>();
  CHECK_MESSAGE(output_contains(summary, "ZeRO-2 on 8 ranks per node, bf16, full fine-tuning will need about"), summary);
  CHECK_MESSAGE(output_contains(summary, "at the first checkpoint save"), summary);
  CHECK_MESSAGE(output_contains(summary, "this node has"), summary);
  // The number estimate gave, as ftdiag prints sizes.
  char printed[64];
  std::snprintf(printed, sizeof printed, "will need about %.1f GiB of host RAM", static_cast<double>(save_peak) / (1ULL << 30));
  CHECK_MESSAGE(output_contains(summary, printed), printed);
  CHECK(output_contains(all_remediation(check), "stage3_gather_16bit_weights_on_model_save"));
  // The model states that size it: from config.json, the evidence says where.
  CHECK(output_contains(check["evidence"].dump(), "estimate.save_peak_ratio"));
}

TEST_CASE("preflight: with a CPU-only torch the estimate says it counts training on the CPU, and why") {
  TempDir tmp;
  fs::create_directories(tmp / "model");
  write_text(tmp / "model" / "config.json", kLlama2_7bConfig);
  write_text(tmp / "ds_z2.json", R"({"bf16": {"enabled": true}, "zero_optimization": {"stage": 2}})");
  Environment env{{"FTDIAG_LIBCUDA", "/nonexistent/libcuda.so.1"}, {"FTDIAG_LIBNVML", "/nonexistent/libnvidia-ml.so.1"},
                  {"PYTHONPATH", std::nullopt}, {"LD_LIBRARY_PATH", std::nullopt}};
  const auto outcome =
      preflight({"--python", kDebianPython, "--model", (tmp / "model").string(), "--deepspeed", (tmp / "ds_z2.json").string()}, env);
  INFO(outcome.out);
  const auto text = squeezed(outcome.out);
  if (!output_contains(text, "torch 1.") && !output_contains(text, "torch 2.")) {
    FTDIAG_SKIP("python3-torch is not installed (scripts/install-deps.sh installs it)");
  }
  CHECK(output_contains(text, "estimate "));
  CHECK(output_contains(text, "a checkpoint save peaks at"));
  CHECK(output_contains(text, "the estimate counts training on the CPU: this interpreter's torch is a CPU-only build"));
}

TEST_CASE("preflight: usage errors exit 2") {
  CHECK(preflight({"--deepspeed", "/nonexistent/ds.json"}, {}).exited_with(2));
  CHECK(preflight({"--model", "/nonexistent/model"}, {}).exited_with(2));
  CHECK(preflight({"--format", "yaml"}, {}).exited_with(2));
  // CLI::Range alone lets NaN through: every comparison with it is false.
  const auto nan_timeout = preflight({"--gpu-timeout", "nan"}, {});
  CHECK(nan_timeout.exited_with(2));
  CHECK(output_contains(nan_timeout.err, "nan"));
}

TEST_CASE("preflight: an interpreter named by --python that cannot be read exits 4 and says why") {
  auto missing = preflight({"--no-gpu", "--python", "/nonexistent/python3"}, {});
  CHECK_MESSAGE(missing.exited_with(4), missing.describe());
  CHECK(output_contains(missing.err, "/nonexistent/python3"));
  auto not_python = preflight({"--no-gpu", "--python", "/etc/hostname"}, {});
  CHECK_MESSAGE(not_python.exited_with(4), not_python.describe());
  CHECK(output_contains(not_python.err, "/etc/hostname"));
}

TEST_CASE("preflight: a config it was given but cannot use exits 4 with the reason, never \"0 errors\"") {
  TempDir tmp;
  fs::create_directories(tmp / "model");
  write_text(tmp / "model" / "config.json", kLlama2_7bConfig);
  const auto model = (tmp / "model").string();
  // Not JSON.
  write_text(tmp / "broken.json", "{\"zero_optimization\": {\"stage\": 2,");
  auto broken = preflight({"--no-gpu", "--deepspeed", (tmp / "broken.json").string(), "--model", model}, {});
  CHECK_MESSAGE(broken.exited_with(4), broken.describe());
  CHECK(output_contains(broken.err, "broken.json"));
  // A stage DeepSpeed refuses: the save check cannot run, and that is said.
  write_text(tmp / "three.json", R"({"bf16": {"enabled": true}, "zero_optimization": {"stage": "three"}})");
  auto three = preflight({"--no-gpu", "--deepspeed", (tmp / "three.json").string(), "--model", model}, {});
  CHECK_MESSAGE(three.exited_with(4), three.describe());
  CHECK(output_contains(three.err, "\"three\""));
  CHECK(output_contains(three.err, "checkpoint save"));
  // A model config.json with a value no model has.
  write_text(tmp / "ds.json", R"({"bf16": {"enabled": true}, "zero_optimization": {"stage": 2}})");
  fs::create_directories(tmp / "bad-model");
  std::string negative = kLlama2_7bConfig;
  negative.replace(negative.find("\"hidden_size\": 4096"), 19, "\"hidden_size\": -4096");
  write_text(tmp / "bad-model" / "config.json", negative);
  auto damaged = preflight({"--no-gpu", "--deepspeed", (tmp / "ds.json").string(), "--model", (tmp / "bad-model").string()}, {});
  CHECK_MESSAGE(damaged.exited_with(4), damaged.describe());
  CHECK(output_contains(damaged.err, "hidden_size"));
}

TEST_CASE("preflight: a crash of the seed job under ftdiag run is explained by the same mismatch, and analyze agrees") {
  TempDir tmp;
  // The job's own CUDA initialisation crashes inside the driver library
  // (the fake's cuInit writes through NULL when asked in the job only:
  // ftdiag's environment snapshot probes the same driver unharmed).
  const std::string job =
      "import ctypes, os\n"
      "os.environ['FAKE_CUDA_INIT'] = 'segv'\n"
      "ctypes.CDLL(os.environ['FTDIAG_LIBCUDA']).cuInit(0)\n";
  // Not --quiet: the verdict printed at the end is part of what is checked.
  Launch launch{{ftdiag_binary().string(), "run", "--job-dir", (tmp / "job").string(), "--", kDebianPython, "-c", job}};
  launch.env = seed_node();
  launch.cwd = tmp.path();
  const auto outcome = run(launch, 90);
  REQUIRE_MESSAGE(outcome.killed_by(SIGSEGV), outcome.describe());
  INFO("ftdiag said: ", outcome.err);
  CHECK(output_contains(outcome.err, "\n  cuda-driver-mismatch, confidence"));
  CHECK(output_contains(outcome.err, "whl/cu121"));

  auto analysis = analyze(tmp / "job");
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  auto& verdict = analysis.report["verdict"];
  INFO("verdict: ", verdict.dump());
  CHECK(verdict["cause"] == "cuda-driver-mismatch");
  CHECK(verdict["rule"] == "crash-with-cuda-build-newer-than-driver");
  CHECK(verdict["confidence"].get<double>() >= 0.6);
  auto& host = analysis.report["evidence"]["hosts"][0];
  CHECK(host["gpu"]["cuda_driver_version"] == 12010);
  // The environment's risks are listed beside the verdict.
  auto mismatch = check_of(analysis.report, "cuda-build-newer-minor-than-driver");
  CHECK(mismatch.is_object());
}

TEST_CASE("preflight: ftdiag run --no-environment records no environment") {
  TempDir tmp;
  Launch launch{ftdiag_run(tmp / "job", {"/bin/true"}, {"--no-environment"})};
  const auto outcome = run(launch, 60);
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  for (const auto& entry : fs::recursive_directory_iterator(tmp / "job")) CHECK(entry.path().filename() != "environment.json");
}

}  // namespace ftdiag::itest

namespace ftdiag::itest {

TEST_CASE("preflight: ftdiag run samples GPU memory per device and per process of the job") {
  TempDir tmp;
  const auto processes_file = tmp / "gpu-processes";
  // The job tells the fake NVML that it holds 3 GiB of GPU 0, then works a while.
  const std::string job =
      "import os, time\n"
      "open(os.environ['FAKE_GPU_PROCESSES_FILE'], 'w').write('%d:3221225472' % os.getpid())\n"
      "time.sleep(4.5)\n";
  Launch launch{{ftdiag_binary().string(), "run", "--verbose", "--job-dir", (tmp / "job").string(), "--", kDebianPython, "-c", job}};
  launch.env = seed_node({{"FAKE_GPU_PROCESSES_FILE", processes_file.string()}, {"FAKE_GPU_MEMORY_USED", "4294967296"}});
  const auto outcome = run(launch, 90);
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  INFO("ftdiag said: ", outcome.err);
  CHECK(output_contains(outcome.err, "GPU 0 peak 4.0 GiB"));
  auto analysis = analyze(tmp / "job");
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  auto& run_evidence = analysis.report["evidence"]["hosts"][0]["runs"][0];
  REQUIRE(run_evidence["gpu_samples"].is_array());
  CHECK(run_evidence["gpu_samples"].size() >= 2);
  CHECK(run_evidence["gpu_samples"].size() <= 4);  // every 2 s over 4.5 s
  bool job_seen = false;
  for (auto& process : run_evidence["processes"]) {
    if (process["pid"] != run_evidence["started"]["job_pid"]) continue;
    job_seen = true;
    CHECK(process["gpu_peak_bytes"] == 3221225472ULL);
    CHECK(process["gpu_devices"] == json::array({0}));
  }
  CHECK(job_seen);
  // The probe and the snapshot are ftdiag's own: not in the job's tree.
  for (auto& process : run_evidence["processes"]) {
    const std::string argv0 = process["argv"].empty() ? "" : process["argv"][0].get<std::string>();
    CHECK(argv0.find("ftdiag-gpu-probe") == std::string::npos);
    CHECK(argv0.find("ftdiag") == std::string::npos);
  }
}

}  // namespace ftdiag::itest
