// Extraction and the fact registry agree: every registered fact ends up set
// or missing with a reason, nothing unregistered is produced, and every value
// has the registered type (rules are type-checked against the registry).
#include <doctest/doctest.h>

#include <map>
#include <set>
#include <string>

#include "evidence_builder.h"
#include "facts/extract.h"
#include "facts/registry.h"

using namespace ftdiag;
using namespace ftdiag::facts;
using namespace ftdiag::facts::testing;

namespace {

// The environment as preflight or the run's snapshot reads it: two GPUs on
// a 12.1 driver, torch cu128 with its extensions, the host's settings.
void add_environment(evidence::HostEvidence& host) {
  model::GpuInventory gpu;
  gpu.probed = true;
  gpu.cuda_driver_version = 12010;
  gpu.cuda_init_result = 0;
  gpu.driver_version = "530.30.02";
  for (int i = 0; i < 2; ++i) {
    gpu.devices.push_back(model::GpuDevice{.index = i, .name = "NVIDIA H100 80GB HBM3", .compute_capability = "9.0",
                                           .memory_total = Bytes{80} << 30, .ecc_uncorrected = 0});
  }
  host.gpu = gpu;
  model::PythonEnvironment python;
  python.read = true;
  python.interpreter = "/usr/bin/python3";
  python.found_by = "the command";
  python.version = "3.11.2";
  python.packages = {
      {.name = "torch", .version = "2.7.0+cu128", .location = "/site", .build = {{"cuda", "12.8"}, {"local_tag", "cu128"}}},
      {.name = "nvidia-cuda-runtime-cu12", .version = "12.8.57", .location = "/site"},
      {.name = "deepspeed", .version = "0.14.0", .location = "/site",
       .build = {{"torch_version", "2.1"}, {"cuda_version", "12.1"}, {"installed_ops", "cpu_adam"}}},
      {.name = "bitsandbytes", .version = "0.43.1", .location = "/site", .build = {{"cuda_libraries", "118"}}}};
  python.libraries = {{.path = "/site/flash_attn_2_cuda.so", .package = "flash_attn", .needed = {"libcudart.so.11.0"}}};
  python.ld_library_path = {{.directory = "/usr/local/cuda-11.8/lib64", .provides = {"libcudart.so.11.0"}},
                            {.directory = "/opt/libtorch/lib", .provides = {"libtorch.so"}}};
  host.python = python;
  // A pasted collect_env beside the job: only reports state the CUDA toolkit
  // (nvcc); its torch must not replace the one read from files.
  host.reported = {{.key = "cuda.toolkit_version", .value = "12.4.131", .format = "env-report",
                    .from = {.collector = "environment-reports", .file = "env.txt", .line = 16}},
                   {.key = "package.torch", .value = "1.13.1", .format = "env-report",
                    .from = {.collector = "environment-reports", .file = "env.txt", .line = 2}}};
  model::SystemSettings system;
  system.mem_total = Bytes{64} << 30;
  system.mem_available = Bytes{60} << 30;
  system.swap_total = Bytes{0};
  system.cgroup_limit = std::optional<Bytes>{Bytes{32} << 30};
  system.shm_total = Bytes{64} << 20;
  system.shm_available = Bytes{60} << 20;
  system.memlock = model::ResourceLimit{.soft = 8u << 20, .hard = 8u << 20};
  system.nofile = model::ResourceLimit{.soft = 1024, .hard = 524288};
  system.core = model::ResourceLimit{.soft = 0, .hard = std::nullopt};
  system.dmesg_restrict = 1;
  system.kernel_log_readable = false;
  system.core_pattern = std::string("|/lib/systemd/systemd-coredump %P");
  system.oom_daemons = std::vector<std::string>{"systemd-oomd"};
  host.system = system;
}

// What a job leaves beside it: its DeepSpeed config and launch command, a
// LoRA recipe, the trainer's state, a whole checkpoint and a cut one.
void add_configs_and_checkpoints(evidence::HostEvidence& host) {
  auto config = [](std::string kind, std::map<std::string, std::string> settings) {
    return evidence::ConfigEvidence{.from = {.collector = "configs", .file = kind + ".cfg"}, .kind = kind, .settings = std::move(settings)};
  };
  host.configs = {
      config("deepspeed", {{"zero_optimization.stage", "3"}, {"zero_optimization.offload_optimizer.device", "cpu"},
                           {"zero_optimization.offload_param.device", "none"},
                           {"zero_optimization.stage3_gather_16bit_weights_on_model_save", "true"}, {"bf16.enabled", "true"}}),
      config("launch-command", {{"launcher", "deepspeed"}, {"launcher_args.num_gpus", "8"}, {"launcher_args.num_nodes", "2"},
                                {"args.save_steps", "500"}, {"args.model_name_or_path", "meta-llama/Llama-2-7b-hf"}}),
      config("llamafactory", {{"finetuning_type", "lora"}, {"template", "llama2"}, {"lora_rank", "16"},
                              {"per_device_train_batch_size", "4"}, {"cutoff_len", "1024"}, {"save_safetensors", "false"}}),
      config("model-config", {{"architectures.0", "LlamaForCausalLM"}, {"model_type", "llama"}, {"hidden_size", "4096"},
                              {"intermediate_size", "11008"}, {"num_attention_heads", "32"}, {"num_hidden_layers", "32"},
                              {"num_key_value_heads", "32"}, {"vocab_size", "32000"}, {"torch_dtype", "float16"},
                              {"tie_word_embeddings", "false"}}),
      config("trainer-state", {{"global_step", "500"}, {"max_steps", "2000"}, {"save_steps", "500"}})};
  host.checkpoints = {
      evidence::CheckpointEvidence{.from = {.collector = "checkpoints", .file = "out/checkpoint-500"}, .step = 500, .files = 4, .bytes = 4096, .complete = true},
      evidence::CheckpointEvidence{.from = {.collector = "checkpoints", .file = "out/tmp-checkpoint-1000"}, .step = 1000, .files = 1, .bytes = 10,
                                   .complete = Missing{MissingReason::not_present, "tmp-checkpoint-1000: never renamed"}}};
}

// As much evidence as a run can carry, so that most facts get a value.
evidence::EvidenceDocument rich_document() {
  auto run = run_started();
  run.started.mechanisms.emplace("netlink", true);
  auto& job = add_process(run, kJobPid, {"torchrun", "train.py"}, 61.0, ExitStatus::exited(1));
  job.peak_rss = Bytes{1000};
  auto& worker = add_process(run, 101, {"python", "train.py"}, 60.0, ExitStatus::killed(SIGKILL));
  worker.environment = {{"RANK", "0"}, {"LOCAL_RANK", "0"}, {"WORLD_SIZE", "2"}};
  worker.vm_hwm = Bytes{9000};
  evidence::ProcessMemory last;
  last.pid = 101;
  last.rss = Bytes{8000};
  worker.last_sample = last;
  add_process(run, 102, {"python", "train.py", "--rank=1"}, 60.5, ExitStatus::killed(SIGTERM));
  end_run(run, 61.5, ExitStatus::exited(1));
  run.notes.push_back({kStart + 59, "forwarded SIGTERM to the job"});
  auto& m = run.memory;
  m.cgroup_first = cgroup(Bytes{10000}, 0);
  m.cgroup_last = cgroup(Bytes{10000}, 1, 1);
  m.cgroup_peak = Bytes{9900};
  m.node_mem_total = Bytes{100000};
  m.node_min_available = Bytes{40000};
  m.job_rss_peak = Bytes{9500};
  m.dev_shm_total = Bytes{5000};
  m.dev_shm_peak_used = Bytes{100};
  for (int i = 1; i <= 59; ++i) run.timeline.push_back(point(i, Bytes(100 * i + 4000), Bytes(100 * i + 3500), Bytes{50000}));
  // ftdiag run warned half a minute before that the save would not fit.
  run.save_forecasts = {evidence::SaveForecast{.time = kStart + 30, .held_bytes = 5000, .predicted_peak_bytes = 60000,
                                               .capacity_bytes = 50000, .capacity_source = "the job's cgroup limit",
                                               .setup = "ZeRO-2 on 1 rank per node, fp32", .fits = false, .warning = "ftdiag: warning: ..."}};
  run.console.line_count = 3;
  run.console.phases = {stretch("training", 5, "{'loss': 1.0}")};
  evidence::ConsoleLine line;
  line.text = "{'loss': 1.0}";
  run.console.tail = {line};
  // The kernel's account of the worker's death, and a GPU error before it.
  run.started.journal_format = evidence::kJournalFormat;
  run.started.supervisor_pid = 99;
  run.started.mechanisms.emplace("signal-trace", true);
  evidence::KernelLogEvidence kernel;
  evidence::LogEvent oom{.kind = "oom-kill", .time = kStart + 59.9, .text = "Memory cgroup out of memory: Killed process 101 (python)"};
  oom.pid = 101;
  oom.signal = SIGKILL;
  oom.details = {{"comm", "python"}, {"scope", "cgroup"}, {"constraint", "CONSTRAINT_MEMCG"}, {"oom_memcg", "/job"},
                 {"anon_rss_bytes", "8192"}, {"file_rss_bytes", "0"}, {"shmem_rss_bytes", "0"}, {"limit_bytes", "10000"},
                 {"top_consumers", "101 python 8.0 KiB"}, {"report", "full"}};
  evidence::LogEvent xid{.kind = "gpu-xid", .time = kStart + 30, .text = "NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus."};
  xid.details = {{"xid", "79"}, {"pci", "0000:01:00"}, {"meaning", "fallen off the bus"}, {"origin", "hardware"}, {"action", "reboot"}};
  kernel.records = {xid, oom};
  run.kernel = kernel;
  run.signals.push_back(evidence::SignalSent{.time = kStart + 59.95, .signal = SIGKILL, .target_pid = 101, .target_comm = "python",
                                             .sender_pid = 101, .sender_comm = "python", .code = 0x80});
  run.received_signals.push_back(evidence::SignalReceived{.time = kStart + 59, .signal = SIGTERM, .sender_pid = 977,
                                                          .sender_comm = "slurmstepd", .forwarded = true});
  run.started.oom_daemons = std::vector<std::string>{"earlyoom"};
  run.started.scheduler_job = "slurm 7.0";
  m.cgroup_first->oom_group_kill = std::uint64_t{0};
  m.cgroup_last->oom_group_kill = std::uint64_t{0};
  m.cgroup_last->oom_group = false;
  evidence::LogEvent cancel{.kind = "scheduler-cancel", .time = kStart + 58,
                            .text = "slurmstepd: error: *** JOB 7 ON node1 CANCELLED AT 2026-09-21T10:00:00 DUE TO TIME LIMIT ***"};
  cancel.details = {{"reason", "time-limit"}, {"source", "slurm"}};
  evidence::LogEvent teardown{.kind = "launcher-teardown", .time = kStart + 60.2,
                              .text = "Sending process 102 closing signal SIGTERM"};
  teardown.pid = 102;
  teardown.signal = SIGTERM;
  evidence::LogEvent reported{.kind = "scheduler-oom", .time = kStart + 61,
                              .text = "slurmstepd: error: Detected 1 oom_kill event in StepId=7.batch."};
  run.console.events = {cancel, teardown, reported};
  // What the probes inside the job recorded: a crash record of the worker
  // (odd for an OOM victim, but every crash fact then has a value), the save
  // it was in, and the last gasp before the kill with its Python stack.
  evidence::CrashEvidence crash;
  crash.source = "crash-probe";
  crash.pid = 101;
  crash.signal = SIGSEGV;
  crash.code = 1;
  crash.fault_address = 0x7ffd0000f000;
  crash.stack_low = 0x7ffd00010000;
  crash.stack_high = 0x7ffd00810000;
  crash.maps_recorded = true;
  crash.unwind = "complete";
  crash.modules = {{"/opt/conda/lib/libcudart.so.11.0", 0x1000, 0x2000, 0}, {"/usr/local/cuda/lib64/libcudart.so.12", 0x3000, 0x4000, 0}};
  evidence::StackFrame frame{.address = 0x1234, .object = "/opt/conda/lib/libcudart.so.11.0", .offset = 0x234,
                             .function = "cudaGetDevice", .file = "runtime.cpp", .line = 42, .language = "native"};
  crash.frames = {frame};
  crash.environment = {{"LD_LIBRARY_PATH", "/opt/conda/lib"}, {"LD_PRELOAD", "/usr/lib/ftdiag/probes/libftdiag_crash.so"}};
  evidence::PythonThreadStack thread{.thread_id = "0x7f00", .current = true};
  thread.frames = {evidence::StackFrame{.function = "step", .file = "train.py", .line = 9, .language = "python"}};
  crash.python = {thread};
  run.crashes = {crash};
  run.probe_markers = {evidence::ProbeMarker{.time = kStart + 55, .pid = 101, .rank = 0, .marker = "begin",
                                             .phase = "checkpoint-save", .what = "torch.save"}};
  evidence::LastGasp gasp{.time = kStart + 59.5, .reason = "the memory cgroup at 97% of its limit", .pressure = 0.97};
  gasp.largest = {last};
  gasp.asked = {101};
  run.last_gasps = {gasp};
  run.python_stacks = {evidence::PythonStacksTaken{
      kStart + 59.6, 101,
      "Current thread 0x00007f0 (most recent call first):\n  File \"train.py\", line 40 in clone_tensors_for_torch_save\n"}};
  run.gpu_samples = {model::GpuMemorySample{.time = kStart + 50, .devices = {model::GpuDeviceUse{.index = 0, .used = Bytes{70} << 30,
                                                                                                  .processes = {{101, Bytes{69} << 30}}}}}};
  auto document = document_of({run});
  add_environment(document.hosts.front());
  add_configs_and_checkpoints(document.hosts.front());
  return document;
}

void check_against_registry(const FactSet& facts) {
  for (const auto& spec : fact_registry()) {
    CAPTURE(spec.name);
    const auto it = facts.entries().find(std::string(spec.name));
    REQUIRE(it != facts.entries().end());
    const auto& value = it->second.value;
    if (value) {
      CHECK(to_string(type_of(value.value())) == to_string(spec.type));
    } else {
      CHECK_FALSE(value.missing().detail.empty());
    }
  }
  for (const auto& entry : facts.entries()) {
    const std::string& name = entry.first;  // CAPTURE is a lambda: no structured bindings (clang 14)
    CAPTURE(name);
    CHECK(find_fact(name) != nullptr);
  }
}

}  // namespace

TEST_CASE("registry: a rich document gives every fact a value of its registered type, or a reason") {
  const FactSet facts = extract_facts(rich_document());
  check_against_registry(facts);
  // What a worker killed by a signal under a job that exited cannot have.
  // An observed death has no inferred status; this console shows no traceback.
  // The kernel sent the SIGKILL (no sender process), and an OOM victim has no fault.
  const std::set<std::string> may_miss = {"job.signal", "death.exit_code", "death.inferred", "console.exception", "console.exception_before_death",
                                          "death.sender_pid", "death.sender_comm", "death.sender_in_job",
                                          "fault.kernel_line", "fault.kind", "fault.object", "fault.address",
                                          "fault.error_meaning", "fault.null_pointer", "fault.near_stack_pointer", "fault.function", "fault.source",
                                          // One node that ran to its end: no silent node, no node list.
                                          "nodes.first_silent", "nodes.first_silent_runs", "nodes.silent_lead", "nodes.expected",
                                          "nodes.unrecorded_names",
                                          // The kernel's OOM kill is the incident's: no other kill is left unplaced.
                                          "kernel.unplaced_oom_victim", "kernel.unplaced_oom_scope", "kernel.other_oom_victims",
                                          // Lines this console does not have.
                                          "log.scheduler_memory_kill", "log.oom_daemon_kill", "log.eviction",
                                          "log.cuda_oom", "log.nccl_error", "log.shm_error", "log.worker_died",
                                          "log.cuda_driver_too_old", "log.cuda_driver_found_version", "log.cuda_unsupported_ptx",
                                          "log.container_exit_code", "log.cpp_terminate", "log.native_assert", "log.native_abort", "log.cuda_ecc_error", "log.gpu_lost",
                                          "log.cuda_illegal_address", "log.cuda_no_kernel_image", "log.driver_module_mismatch", "log.host_memory_error",
                                          "log.host_memory_percent", "log.launcher_signalled", "log.worker_died_at_exit", "log.library_abi_error",
                                          "log.memory_corruption", "log.native_crash", "log.native_crash_signal", "log.fatal_error_backtrace",
                                          "log.nccl_timeout", "log.stack_overflow", "log.native_frame_depth",
                                          // No CUDA out-of-memory line either (tests/unit/facts/test_extract_gpu_oom.cpp).
                                          "gpu_oom.requested_bytes", "gpu_oom.gpu", "gpu_oom.total_bytes", "gpu_oom.free_bytes",
                                          "gpu_oom.allocated_bytes", "gpu_oom.reserved_bytes", "gpu_oom.reserved_unallocated_bytes",
                                          "gpu_oom.fragmentation_ratio", "gpu_oom.shortfall_bytes", "gpu_oom.process_bytes",
                                          "gpu_oom.other_processes_bytes", "gpu_oom.message_release", "gpu_oom.phase",
                                          "gpu_oom.phase_because", "gpu_oom.steps_before", "host_memory_error.phase",
                                          "host_memory_error.phase_because",
                                          // The configs say nothing of gradient accumulation.
                                          "config.gradient_accumulation_steps", "config.save_strategy",
                                          // The configs' setup is ZeRO-3: the ZeRO-2 remedies are not computed.
                                          "estimate.zero3_save_peak_bytes", "estimate.save_fits_ranks_per_node",
                                          // A plain log's count; this phase comes from a run's console.
                                          "phase.lines_to_death", "phase.steps_before_death", "phase.after_save_step", "log.crash_loading_module",
                                          // Read on plain logs only: a run's console has its own recognisers.
                                          "log.word", "log.word_line", "log.cut_traceback_repeats", "log.cut_traceback_frame",
                                          // The GPU probe answered; tables (rules/*.json) derive these after extraction.
                                          "gpu.probe_failure", "gpu.arch_min_driver", "gpu.arch_name", "torch.wheel_tag_for_driver",
                                          "cuda.build_min_driver", "cuda.build_compat_min_driver"};
  for (const auto& [fact_name, entry] : facts.entries()) {
    const std::string& name = fact_name;
    CAPTURE(name);
    if (!entry.value) CHECK(may_miss.count(name) == 1);
  }
  CHECK(value_of<bool>(facts, "watch.netlink"));
  CHECK(value_of<std::string>(facts, "gpu.driver_cuda_version") == "12.1");
  CHECK(value_of<std::string>(facts, "torch.cuda_version") == "12.8");
  CHECK(value_of<std::string>(facts, "torch.release") == "2.7");
  CHECK(value_of<std::string>(facts, "cuda.toolkit_version") == "12.4.131");
  CHECK(facts.get("cuda.toolkit_version").pointer == "/hosts/0/reported/0/value");
  CHECK(value_of<std::string>(facts, "environment.source") == "both");
  CHECK(value_of<std::int64_t>(facts, "ext.foreign_cuda_runtime_count") == 1);
  CHECK(value_of<std::string>(facts, "ext.foreign_cuda_runtime") == "flash_attn_2_cuda.so (flash_attn) links libcudart.so.11.0");
  CHECK_FALSE(value_of<bool>(facts, "bitsandbytes.has_torch_cuda_library"));
  CHECK(value_of<std::int64_t>(facts, "ld.library_path_cudart_major") == 11);
  CHECK(value_of<std::int64_t>(facts, "gpu.memory_peak_bytes") == (std::int64_t{70} << 30));
  CHECK(value_of<bool>(facts, "host.core_piped"));
  CHECK(value_of<std::int64_t>(facts, "deaths.forwarded_signals") == 1);
  CHECK(value_of<std::int64_t>(facts, "death.peak_rss_bytes") == 9000);
  CHECK(value_of<std::int64_t>(facts, "death.rss_bytes") == 8000);
  CHECK(value_of<double>(facts, "shm.peak_used_ratio") == doctest::Approx(0.02));
  CHECK(value_of<bool>(facts, "oom.killed_by_kernel"));
  CHECK(value_of<std::string>(facts, "oom.matched_by") == "pid");
  CHECK(value_of<std::string>(facts, "oom.victim") == "pid 101 (python)");
  CHECK(value_of<std::string>(facts, "death.sender") == "the kernel");
  CHECK(value_of<std::string>(facts, "job.signal_sender_comm") == "slurmstepd");
  CHECK(value_of<std::int64_t>(facts, "gpu.xid") == 79);
  CHECK(value_of<std::string>(facts, "log.scheduler_cancel") == "time-limit");
  CHECK(value_of<bool>(facts, "log.oom_reported"));
  CHECK(value_of<std::int64_t>(facts, "log.launcher_teardown") == 1);
  CHECK(value_of<std::string>(facts, "node.oom_daemons") == "earlyoom");
  CHECK(value_of<std::int64_t>(facts, "config.zero_stage") == 3);
  CHECK(value_of<std::int64_t>(facts, "config.lora_rank") == 16);
  CHECK(value_of<bool>(facts, "config.gradient_checkpointing"));  // LLaMA-Factory's default
  // ZeRO-3 with the optimizer offloaded, LoRA on Llama-2-7B (config.json), 8 ranks on each of 2 nodes.
  CHECK(value_of<std::int64_t>(facts, "estimate.parameters") > 6'700'000'000);
  CHECK(value_of<std::string>(facts, "estimate.setup") ==
        "LoRA rank 16, ZeRO-3 + optimizer offload, 16-bit gather on save, on 8 ranks per node x 2 nodes, bf16");
  CHECK(value_of<std::int64_t>(facts, "trainer.next_save_step") == 1000);
  CHECK(value_of<bool>(facts, "checkpoint.incomplete"));
}

TEST_CASE("registry: clean runs and empty documents still account for every fact") {
  check_against_registry(extract_facts(document_of({})));
  auto run = run_started();
  end_run(run, 10, ExitStatus::exited(0));
  check_against_registry(extract_facts(document_of({run})));
  auto killed = run_started();  // ftdiag itself was killed: no end record, no status
  check_against_registry(extract_facts(document_of({killed})));
}

TEST_CASE("registry: names are unique and look up") {
  std::set<std::string_view> names;
  for (const auto& spec : fact_registry()) {
    CAPTURE(spec.name);
    CHECK(names.insert(spec.name).second);
    CHECK(find_fact(spec.name) == &spec);
    CHECK_FALSE(spec.meaning.empty());
  }
  CHECK(find_fact("cgroup.peek") == nullptr);
  CHECK(find_fact("") == nullptr);
}
