// Verdicts on real PyTorch jobs (Debian's python3-torch, CPU): ranks over
// gloo started by torch.multiprocessing, AdamW, torch.save, each in a real
// memory cgroup like a container or a Slurm step.
#include <signal.h>

#include <set>
#include <string>

#include <doctest/doctest.h>

#include "skip.h"
#include "integration/cgroup_sandbox.h"
#include "integration/harness.h"
#include "integration/report_checks.h"

namespace ftdiag::itest {
namespace {



}  // namespace

TEST_CASE("real torch: a ZeRO-2-like save gathering full CPU copies on every rank is host-oom-checkpoint-save") {
  if (!torch_available()) FTDIAG_SKIP("python3-torch is not installed (scripts/install-deps.sh installs it)");
  // Training takes about 1.0-1.1 GiB in this cgroup, the first save 0.4 GiB
  // more; ftdiag is in the cgroup too, and sanitized it needs ~100 MiB more.
#ifdef FTDIAG_SANITIZED
  constexpr std::uint64_t kLimit = (1250ull + 128) << 20;
#else
  constexpr std::uint64_t kLimit = 1250ull << 20;
#endif
  auto made = MemoryCgroupSandbox::create_any(kLimit);
  if (auto* why_not = std::get_if<std::string>(&made)) FTDIAG_SKIP(*why_not);
  const auto& cgroup = std::get<std::unique_ptr<MemoryCgroupSandbox>>(made);
  TempDir tmp;
  const std::string train = std::string(FTDIAG_SOURCE_DIR) + "/examples/torch-checkpoint-oom/train.py";
  Launch launch{ftdiag_run(tmp / "job", {kDebianPython, train, "--steps", "8", "--save-every", "4", "--out", (tmp / "out").string()})};
  launch.cgroup_procs = cgroup->procs_file();
  auto outcome = run(launch, 120);
  REQUIRE_MESSAGE(outcome.exited_with(1), outcome.describe());  // torch.multiprocessing's spawn failed

  auto analysis = analyze(tmp / "job");
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  auto& verdict = analysis.report["verdict"];
  INFO("verdict: ", verdict.dump(), "\nfindings: ", analysis.report["findings"].dump());
  CHECK(verdict["cause"] == "host-oom-checkpoint-save");
  CHECK(verdict["scope"] == "cgroup");
  CHECK(verdict["confidence"].get<double>() >= 0.9);
  // The phase is the Trainer's console line when the kill came while the
  // copies were gathered, the Python probe's torch.save marker when it came
  // inside torch.save (the framework's own word outranks the console).
  const auto summary = verdict["summary"].get<std::string>();
  CHECK((summary.find("Saving model checkpoint to") != std::string::npos ||
         summary.find("torch.save began (the Python probe's marker, pid ") != std::string::npos));
  // The first death is a rank killed by SIGKILL.
  auto& run_json = only_run(analysis.document);
  bool rank_killed = false;
  std::set<int> killed;
  for (auto& p : run_json["processes"]) {
    if (p["death"].is_object() && p["death"]["status"]["signal"] == SIGKILL) {
      rank_killed = true;
      killed.insert(p["pid"].get<int>());
    }
  }
  CHECK(rank_killed);
  // The kernel's own record names a killed rank by its pid, and the tracer
  // saw the kernel, not a process, generate its SIGKILL.
  auto& mechanisms = run_json["started"]["mechanisms"];
  if (mechanisms["kernel-log"] == true) {
    bool named = false;
    for (auto& record : run_json["kernel"]["records"]) {
      named |= record["kind"] == "oom-kill" && record["pid"].is_number() && killed.count(record["pid"].get<int>()) > 0;
    }
    CHECK_MESSAGE(named, "no kernel OOM record for a killed rank: ", run_json["kernel"].dump());
    CHECK(analysis.report["findings"].dump().find("the kernel's log names the victim") != std::string::npos);
  }
  if (mechanisms["signal-trace"] == true) {
    bool from_kernel = false;
    for (auto& s : run_json["signals"]) {
      from_kernel |= s["signal"] == SIGKILL && killed.count(s["target_pid"].get<int>()) > 0 && s["code"].get<int>() > 0;
    }
    CHECK_MESSAGE(from_kernel, "no kernel-generated SIGKILL to a killed rank: ", run_json["signals"].dump());
  }
  // Reported as well as judged: the terminal, Markdown and HTML of this real crash.
  check_every_report(tmp / "job", verdict["cause"].get<std::string>(), tmp.path());
}

TEST_CASE("real torch: a ZeRO-2 save of a frozen base under torchrun is killed as the memory model predicts, and the verdict says both") {
  if (!torch_available()) FTDIAG_SKIP("python3-torch is not installed (scripts/install-deps.sh installs it)");
  // 82 M frozen fp32 parameters and a small adapter on two ranks: training
  // peaks near 1.2 GiB in the cgroup (torch, the launcher, the weights) and
  // stands near 1.05 GiB between steps; the save's clones of the whole state
  // dict add 2 x 313 MiB. ftdiag is in the cgroup too, and sanitized it
  // needs ~100 MiB more.
#ifdef FTDIAG_SANITIZED
  constexpr std::uint64_t kLimit = (1450ull + 128) << 20;
#else
  constexpr std::uint64_t kLimit = 1450ull << 20;
#endif
  auto made = MemoryCgroupSandbox::create_any(kLimit);
  if (auto* why_not = std::get_if<std::string>(&made)) FTDIAG_SKIP(*why_not);
  const auto& cgroup = std::get<std::unique_ptr<MemoryCgroupSandbox>>(made);
  TempDir tmp;
  const auto out = tmp / "out";
  fs::create_directories(out);
  const std::string jobs = std::string(FTDIAG_SOURCE_DIR) + "/tests/torch_jobs/";
  const std::vector<std::string> job{kDebianPython, jobs + "unsupervised_jobs.py", "--scenario", "zero2-save", "--out", out.string()};
  // The base model, downloaded before the job (outside its cgroup): config.json and model.safetensors.
  auto publish = job;
  publish.push_back("--publish-model-only");
  const auto published = run(Launch{publish}, 120);
  REQUIRE_MESSAGE(published.exited_with(0), published.describe());
  // What the user keeps beside the job: its DeepSpeed config and launch script.
  write_text(out / "ds_config.json", R"({"train_micro_batch_size_per_gpu": 4, "bf16": {"enabled": false}, "fp16": {"enabled": false},
    "zero_optimization": {"stage": 2, "overlap_comm": true}})");
  write_text(out / "launch.sh", "torchrun --nproc_per_node 2 train.py --deepspeed ds_config.json --save_safetensors False "
                                "--finetuning_type freeze --model_name_or_path " + (out / "base-model").string() + "\n");

  std::vector<std::string> launched{kDebianPython, jobs + "torchrun.py", "--standalone", "--nproc_per_node", "2"};
  launched.insert(launched.end(), job.begin() + 1, job.end());
  Launch launch{ftdiag_run(tmp / "job", launched)};
  launch.cgroup_procs = cgroup->procs_file();
  const auto outcome = run(launch, 180);
  REQUIRE_MESSAGE(!outcome.exited_with(0), outcome.describe());

  Analysis analysis;
  analysis.outcome = run(Launch{{ftdiag_binary().string(), "analyze", (tmp / "job").string(), out.string(), "--format", "json"}}, 120);
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  analysis.report = json::parse(analysis.outcome.out);
  auto& verdict = analysis.report["verdict"];
  INFO("verdict: ", verdict.dump(), "\nfindings: ", analysis.report["findings"].dump().substr(0, 6000));
  CHECK(verdict["cause"] == "host-oom-checkpoint-save");
  CHECK(verdict["scope"] == "cgroup");
  CHECK(analysis.report["findings"].dump().find("predicted beside observed: ftdiag's memory model puts this save at") != std::string::npos);
  // The facts behind it.
  const auto printed = run(Launch{{ftdiag_binary().string(), "analyze", (tmp / "job").string(), out.string(), "--facts"}}, 120);
  REQUIRE_MESSAGE(printed.exited_with(0), printed.describe());
  auto facts = json::parse(printed.out);
  REQUIRE_MESSAGE(facts.contains("estimate.save_peak_bytes"), printed.out.substr(0, 4000));
  // The model from its safetensors header, exactly: 80000 x 512 twice, the head's bias, the adapter's 2 x 512 x 8.
  CHECK(facts["estimate.parameters"] == 82'008'192);
  CHECK(facts["config.zero_stage"] == 2);
  CHECK(facts["config.gpus_per_node"] == 2);
  CHECK(facts["estimate.rank_baseline_measured"] == true);
  CHECK(facts.contains("memory.before_phase_at_death_bytes"));
  // Observed: the save died at the limit. Predicted: what training held plus every rank's clone.
  const double predicted = facts["estimate.save_peak_bytes"].get<double>();
  const double error = predicted / static_cast<double>(kLimit) - 1;
  MESSAGE("predicted save peak ", predicted / (1 << 20), " MiB against the ", kLimit >> 20, " MiB limit it died at: ",
          error * 100, "% (held as the save began: ", facts["memory.before_phase_at_death_bytes"].get<double>() / (1 << 20), " MiB)");
  CHECK(predicted >= 0.95 * static_cast<double>(kLimit));
  CHECK(predicted <= 1.5 * static_cast<double>(kLimit));
  // Reported as well as judged: the terminal, Markdown and HTML of this real crash.
  check_every_report(tmp / "job", verdict["cause"].get<std::string>(), tmp.path());
}

TEST_CASE("real torch: DataLoader workers with a 64 MiB /dev/shm die of SIGBUS: shm-exhausted") {
  if (!torch_available()) FTDIAG_SKIP("python3-torch is not installed (scripts/install-deps.sh installs it)");
  // A private /dev/shm of Docker's default size, in a mount namespace.
  const bool can_mount = run(Launch{{"/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
                                     "mount -t tmpfs -o size=1m tmpfs /dev/shm"}},
                             10)
                             .exited_with(0);
  if (!can_mount) FTDIAG_SKIP("cannot mount a private /dev/shm here (needs root)");
  TempDir tmp;
  const std::string job = std::string(FTDIAG_SOURCE_DIR) + "/tests/torch_jobs/shm_workers.py";
  std::string command = "mount -t tmpfs -o size=64m tmpfs /dev/shm && exec";
  for (const auto& a : ftdiag_run(tmp / "job", {kDebianPython, job, "--workers", "2"})) command += " '" + a + "'";
  auto outcome = run(Launch{{"/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", command}}, 120);
  REQUIRE_MESSAGE(outcome.exited_with(1), outcome.describe());

  auto analysis = analyze(tmp / "job");
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  auto& verdict = analysis.report["verdict"];
  INFO("verdict: ", verdict.dump(), "\nfindings: ", analysis.report["findings"].dump());
  CHECK(verdict["cause"] == "shm-exhausted");
  CHECK(verdict["confidence"].get<double>() >= 0.8);
  CHECK(verdict["summary"].get<std::string>().find("/dev/shm (64.0 MiB) ran out") == 0);
  // The workers' deaths are recorded with their signal.
  bool worker_bus_error = false;
  for (auto& p : only_run(analysis.document)["processes"]) {
    if (p["death"].is_object() && p["death"]["status"]["signal"] == SIGBUS) worker_bus_error = true;
  }
  CHECK(worker_bus_error);
  // Reported as well as judged: the terminal, Markdown and HTML of this real crash.
  check_every_report(tmp / "job", verdict["cause"].get<std::string>(), tmp.path());
}

}  // namespace ftdiag::itest
