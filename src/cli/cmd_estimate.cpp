// `ftdiag estimate (--model DIR | --params 7B) [--deepspeed FILE] [flags]`:
// the memory a training setup needs, per GPU and in host RAM per node (the
// checkpoint-save peak above all), DeepSpeed's own estimator beside it, and
// which ZeRO stage to use on the hardware at hand (docs/memory-model.md).
//
// The model's size comes from its safetensors headers (exact), else its
// config.json (the architecture's formulas), else --params. The setup comes
// from --deepspeed and is overridden by the flags given. Host memory is
// --host-mem, else this machine's RAM or its cgroup's limit when lower; GPU
// memory is --gpu-mem, else the GPUs the driver reports here.
//
// Exit 0: estimated; 2: bad arguments or a setup that cannot be estimated
// (LoRA on a bare count); 3: the model folder or config does not exist or
// holds nothing to size the model by; 4: a file cannot be read or parsed, or
// holds a value no framework accepts (a ZeRO stage "three", a negative
// hidden_size), or the weights are damaged or over ftdiag's bounds and no
// config.json sizes the model.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "collect/helpers/gpu_probe.h"
#include "collect/configs/json_settings.h"
#include "collect/weights/model_weights.h"
#include "collect/system_roots.h"
#include "collect/host/system_settings.h"
#include "estimate/advisor.h"
#include "estimate/byte_size.h"
#include "facts/estimate_inputs.h"
#include "facts/extract.h"
#include "facts/version_order.h"
#include "report/estimate_json.h"
#include "report/estimate_text.h"

namespace ftdiag::cli {

namespace {

namespace fs = std::filesystem;

struct EstimateArguments {
  std::string model;
  std::string params;
  std::string deepspeed;
  int zero_stage = 2;
  bool offload_optimizer = false;
  bool offload_param = false;
  std::uint64_t gpus_per_node = 1;
  std::uint64_t nodes = 1;
  std::string finetune = "full";
  std::uint64_t lora_rank = 8;
  int quant_bits = 4;
  std::uint64_t freeze_layers = 2;
  std::vector<std::string> lora_targets;
  std::string dtype = "bf16";
  std::uint64_t micro_batch = 1;
  std::uint64_t gradient_accumulation = 1;
  std::string trainable;
  std::uint64_t seq_len = 2048;
  bool gradient_checkpointing = false;
  std::string recompute = "none";
  bool dropout = false;
  std::uint64_t tensor_parallel = 1;
  bool sequence_parallel = false;
  std::string attention = "flash";
  std::string host_mem;
  std::string gpu_mem;
  std::string rank_baseline;
  std::string deepspeed_version;
  std::string device = "gpu";
  std::string save_format = "safetensors";
  bool no_gpu = false;
  std::string format = "text";
  // Which flags were given: they override the DeepSpeed config.
  CLI::App* command = nullptr;
  bool given(const char* flag) const { return command->count(flag) > 0; }
};

struct Failure {
  int code;
  std::string message;
};

int fail(const Failure& failure) {
  std::fprintf(stderr, "ftdiag estimate: %s\n", failure.message.c_str());
  return failure.code;
}

int code_for(const Missing& missing) {
  if (missing.reason == MissingReason::not_present) return kExitInputNotFound;
  return kExitInputUnreadable;
}

// The configs the estimate reads, as an evidence document, so the facts
// (and thus the setup) read exactly as `analyze` and `preflight` read them.
// `weights_problem` says why the weights could not be read, when they were
// there but damaged, over ftdiag's bounds or unreadable.
std::variant<evidence::EvidenceDocument, Failure> read_inputs(const EstimateArguments& args, std::vector<std::string>& notes,
                                                               std::optional<std::string>& weights_problem) {
  evidence::EvidenceDocument document;
  auto& host = evidence::host_named(document, "");
  if (!args.deepspeed.empty()) {
    auto settings = collect::read_json_settings(args.deepspeed);
    if (!settings) return Failure{code_for(settings.missing()), fmt::format("--deepspeed {}: {}", args.deepspeed, settings.missing().detail)};
    host.configs.push_back({.from = {.collector = "estimate", .file = args.deepspeed}, .kind = "deepspeed", .settings = std::move(settings).value()});
  }
  if (args.model.empty()) return document;
  std::error_code ec;
  if (!fs::exists(args.model, ec)) return Failure{kExitInputNotFound, fmt::format("--model {}: no such file or folder", args.model)};
  const fs::path folder = fs::is_directory(args.model, ec) ? fs::path(args.model) : fs::path(args.model).parent_path();
  const auto config_file = folder / "config.json";
  if (fs::exists(config_file, ec)) {
    auto settings = collect::read_json_settings(config_file);
    if (!settings) return Failure{code_for(settings.missing()), fmt::format("--model: {}", settings.missing().detail)};
    host.configs.push_back({.from = {.collector = "estimate", .file = config_file.string()}, .kind = "model-config", .settings = std::move(settings).value()});
  }
  auto weights = collect::read_model_weights(args.model);
  if (weights) {
    host.configs.push_back({.from = {.collector = "estimate", .file = args.model}, .kind = "model-weights", .settings = std::move(weights).value()});
  } else if (weights.missing().reason == MissingReason::permission_denied ||
             weights.missing().reason == MissingReason::unparseable) {
    // Damaged or unreadable weights are said, and config.json sizes the model if it can.
    notes.push_back(fmt::format("the weights were not read: {}", weights.missing().detail));
    weights_problem = weights.missing().detail;
  }
  return document;
}

std::optional<Failure> apply_flags(const EstimateArguments& args, estimate::TrainingSetup& setup) {
  if (args.given("--zero-stage")) setup.zero_stage = args.zero_stage;
  if (args.given("--offload-optimizer")) setup.offload_optimizer = args.offload_optimizer;
  if (args.given("--offload-param")) setup.offload_param = args.offload_param;
  if (args.given("--gpus-per-node")) setup.gpus_per_node = args.gpus_per_node;
  if (args.given("--nodes")) setup.nodes = args.nodes;
  if (args.given("--finetune")) setup.finetune = *estimate::finetune_from_string(args.finetune);
  if (args.given("--lora-rank")) setup.lora_rank = args.lora_rank;
  if (args.given("--quant-bits")) setup.quantization_bits = args.quant_bits;
  if (args.given("--freeze-layers")) setup.freeze_trainable_layers = args.freeze_layers;
  if (args.given("--trainable")) {
    auto count = estimate::parse_parameter_count(args.trainable);
    if (!count) return Failure{kExitUsage, fmt::format("--trainable {}: {}", args.trainable, count.missing().detail)};
    if (setup.finetune == estimate::Finetune::full) {
      return Failure{kExitUsage, "--trainable counts the parameters LoRA, QLoRA or freeze-tuning trains: give --finetune too"};
    }
    setup.trainable_parameters = static_cast<double>(count.value());
  }
  if (args.given("--lora-targets")) setup.lora_targets = args.lora_targets;
  if (args.given("--dtype")) setup.precision = *estimate::precision_from_string(args.dtype);
  if (args.given("--micro-batch")) setup.micro_batch = args.micro_batch;
  if (args.given("--grad-accum")) setup.gradient_accumulation_steps = args.gradient_accumulation;
  if (args.given("--seq-len")) setup.sequence_length = args.seq_len;
  if (args.given("--gradient-checkpointing")) setup.gradient_checkpointing = true;
  if (args.given("--recompute")) {
    setup.gradient_checkpointing = args.recompute == "full";
    setup.selective_recompute = args.recompute == "selective";
  }
  if (args.given("--dropout")) setup.dropout = true;
  if (args.given("--tensor-parallel")) setup.tensor_parallel = args.tensor_parallel;
  if (args.given("--sequence-parallel")) setup.sequence_parallel = true;
  setup.attention = args.attention == "eager" ? estimate::Attention::eager : estimate::Attention::flash;
  if (args.given("--rank-baseline")) {
    auto bytes = estimate::parse_byte_size(args.rank_baseline);
    if (!bytes) return Failure{kExitUsage, fmt::format("--rank-baseline: {}", bytes.missing().detail)};
    setup.rank_baseline_bytes = static_cast<double>(bytes.value());
    setup.rank_baseline_measured = true;
  }
  setup.train_on_cpu = args.device == "cpu";
  setup.shard_copy_on_save = args.save_format == "safetensors";
  if (args.given("--deepspeed-version")) {
    if (!facts::looks_like_version(args.deepspeed_version)) {
      return Failure{kExitUsage, fmt::format("--deepspeed-version: '{}' is not a version (0.14.0, 0.18.7)", args.deepspeed_version)};
    }
    setup.flatten_on_gpu = facts::flattens_on_gpu(args.deepspeed_version);
    setup.deepspeed_estimator_before_0_14_3 = facts::zero2_estimator_before_0_14_3(args.deepspeed_version);
  }
  if (setup.offload_param && setup.zero_stage != 3) return Failure{kExitUsage, "--offload-param needs ZeRO-3 (--zero-stage 3)"};
  return std::nullopt;
}

// --host-mem, else this machine's RAM or its cgroup's limit when lower.
std::optional<Failure> host_resources(const EstimateArguments& args, estimate::Resources& resources) {
  if (!args.host_mem.empty()) {
    auto bytes = estimate::parse_byte_size(args.host_mem);
    if (!bytes) return Failure{kExitUsage, fmt::format("--host-mem: {}", bytes.missing().detail)};
    resources.host_memory_bytes = static_cast<double>(bytes.value());
    resources.host_memory_source = "--host-mem";
    return std::nullopt;
  }
  const auto system = collect::read_system_settings(collect::SystemRoots{});
  if (system.mem_total) {
    resources.host_memory_bytes = static_cast<double>(system.mem_total.value());
    resources.host_memory_source = "this machine's RAM";
  }
  if (system.cgroup_limit && system.cgroup_limit.value() &&
      (!resources.host_memory_bytes || static_cast<double>(*system.cgroup_limit.value()) < *resources.host_memory_bytes)) {
    resources.host_memory_bytes = static_cast<double>(*system.cgroup_limit.value());
    resources.host_memory_source = "this cgroup's limit";
  }
  return std::nullopt;
}

// --gpu-mem, else the smallest GPU the driver reports here; the count of
// them is the ranks per node when nothing else says.
std::optional<Failure> gpu_resources(const EstimateArguments& args, estimate::Resources& resources, std::optional<std::uint64_t>& gpus_here) {
  if (!args.gpu_mem.empty()) {
    auto bytes = estimate::parse_byte_size(args.gpu_mem);
    if (!bytes) return Failure{kExitUsage, fmt::format("--gpu-mem: {}", bytes.missing().detail)};
    resources.gpu_memory_bytes = static_cast<double>(bytes.value());
    return std::nullopt;
  }
  if (args.no_gpu) return std::nullopt;
  const auto inventory = collect::probe_gpus(collect::GpuProbeRequest{.deadline = std::chrono::milliseconds(15000)});
  for (const auto& device : inventory.devices) {
    if (!device.memory_total) continue;
    const auto bytes = static_cast<double>(*device.memory_total);
    if (!resources.gpu_memory_bytes || bytes < *resources.gpu_memory_bytes) resources.gpu_memory_bytes = bytes;
  }
  if (!inventory.devices.empty()) gpus_here = inventory.devices.size();
  return std::nullopt;
}

int run_estimate(const EstimateArguments& args) {
  std::vector<std::string> notes;
  std::optional<std::string> weights_problem;
  auto inputs = read_inputs(args, notes, weights_problem);
  if (auto* failure = std::get_if<Failure>(&inputs)) return fail(*failure);
  const auto& document = std::get<evidence::EvidenceDocument>(inputs);
  const auto facts = facts::extract_facts(document);

  estimate::ModelShape shape;
  if (!args.params.empty()) {
    auto count = estimate::parse_parameter_count(args.params);
    if (!count) return fail({kExitUsage, fmt::format("--params {}: {}", args.params, count.missing().detail)});
    // A count alone has no dimensions: a typical decoder's of that size
    // stands in, and the output says whose.
    shape = estimate::assumed_decoder_shape(count.value());
  } else if (auto model = facts::model_from_evidence(document, facts)) {
    shape = model->shape;
  } else if (model.missing().reason == MissingReason::unparseable) {
    // A config.json with a value no model has (hidden_size -4096) is a damaged input, not an unknown model.
    return fail({kExitInputUnreadable, fmt::format("--model {}: {}", args.model, model.missing().detail)});
  } else if (weights_problem) {
    // Weights that are there but cannot be read (damaged, over ftdiag's
    // bounds, unreadable) and nothing else to size the model by: the input
    // is unusable, not absent.
    return fail({kExitInputUnreadable,
                 fmt::format("--model {}: its weights cannot be read, and no config.json ftdiag knows sizes the model: {}",
                             args.model, *weights_problem)});
  } else {
    return fail({kExitInputNotFound,
                 fmt::format("--model {}: neither safetensors weights nor a config.json ftdiag knows the architecture of{}", args.model,
                             notes.empty() ? "" : " (" + notes.front() + ")")});
  }
  // A stage DeepSpeed refuses is not silently the default stage.
  if (const auto& stage = facts.get("config.zero_stage").value;
      !stage && stage.missing().reason == MissingReason::unparseable && !args.given("--zero-stage")) {
    return fail({kExitInputUnreadable, fmt::format("--deepspeed {}: {}", args.deepspeed, stage.missing().detail)});
  }

  estimate::Resources resources;
  std::optional<std::uint64_t> gpus_here;
  if (auto failure = gpu_resources(args, resources, gpus_here)) return fail(*failure);
  if (auto failure = host_resources(args, resources)) return fail(*failure);

  estimate::TrainingSetup defaults;
  if (gpus_here) defaults.gpus_per_node = *gpus_here;
  auto setup = facts::setup_from_facts(facts, defaults);
  if (auto failure = apply_flags(args, setup)) return fail(*failure);
  // The precision: --dtype, else the configs, else bf16, said to be assumed
  // (a DeepSpeed config's "auto" leaves it to the trainer's arguments).
  if (const auto& precision = facts.get("config.precision").value; !precision && !args.given("--dtype") && !args.deepspeed.empty()) {
    notes.push_back(fmt::format("{}: {} is assumed (--dtype to choose)", precision.missing().detail, estimate::to_string(setup.precision)));
  }

  auto estimated = estimate::estimate_memory(shape, setup);
  if (!estimated) return fail({kExitUsage, estimated.missing().detail});
  const auto advice = estimate::advise(shape, setup, resources);
  for (const auto& note : notes) std::fprintf(stderr, "ftdiag estimate: note: %s\n", note.c_str());

  if (args.format == "json") {
    auto json = report::estimate_to_json(estimated.value(), resources, advice);
    json["notes"] = notes;
    std::cout << json.dump(2) << '\n';
  } else {
    std::cout << report::render_estimate(estimated.value(), resources, advice);
  }
  return kExitOk;
}

}  // namespace

Action add_estimate_command(CLI::App& app) {
  auto args = std::make_shared<EstimateArguments>();
  CLI::App* cmd = app.add_subcommand(
      "estimate", "Memory a training setup needs per GPU and in host RAM per node (checkpoint save included), and the ZeRO stage to use");
  args->command = cmd;
  cmd->footer("Examples:\n"
              "  ftdiag estimate --params 7B --zero-stage 2 --gpus-per-node 8\n"
              "  ftdiag estimate --model ./Llama-2-7b-hf --deepspeed ds_z3.json --host-mem 256G");
  auto* model = cmd->add_option("--model", args->model, "The model's folder (safetensors headers, config.json) or one .safetensors file");
  auto* params = cmd->add_option("--params", args->params, "The parameter count instead: 7B, 1.5B, 350M, 7e9");
  model->excludes(params);
  cmd->add_option("--deepspeed", args->deepspeed, "The job's DeepSpeed config (JSON); the flags below override it");
  cmd->add_option("--zero-stage", args->zero_stage, "ZeRO stage (default: the config's, else 2)")->check(CLI::Range(0, 3).description("0 to 3"));
  cmd->add_flag("--offload-optimizer", args->offload_optimizer, "Optimizer states in host memory (offload_optimizer: cpu)");
  cmd->add_flag("--offload-param", args->offload_param, "Parameters in host memory (ZeRO-3 offload_param: cpu)");
  cmd->add_option("--gpus-per-node", args->gpus_per_node, "Ranks (GPUs) per node (default: the GPUs here, else 1)")->check(CLI::Range(1, 1024).description("1 to 1024"));
  cmd->add_option("--nodes", args->nodes, "Nodes (default 1)")->check(CLI::Range(1, 100000).description("1 to 100000"));
  cmd->add_option("--finetune", args->finetune, "full, lora, qlora or freeze (default full)")
      ->check(CLI::IsMember({"full", "lora", "qlora", "freeze"}));
  cmd->add_option("--quant-bits", args->quant_bits, "QLoRA's base: 8, 4 (default) or 2 bits a weight")->check(CLI::IsMember({8, 4, 2}));
  cmd->add_option("--freeze-layers", args->freeze_layers, "Freeze-tuning trains the last N decoder layers (default 2, as LLaMA-Factory)")
      ->check(CLI::Range(1, 1024).description("1 to 1024"));
  cmd->add_option("--lora-rank", args->lora_rank, "LoRA's rank (default 8)")->check(CLI::Range(1, 65536).description("1 to 65536"));
  cmd->add_option("--trainable", args->trainable,
                  "The parameters LoRA or freeze-tuning trains, when known (PEFT's \"trainable params: N\"): 4.2M, 4194304");
  cmd->add_option("--lora-targets", args->lora_targets, "Module names LoRA adapts (default: every linear layer of the decoder)")
      ->delimiter(',');
  cmd->add_option("--dtype", args->dtype, "Training precision: bf16, fp16 (16-bit weights, fp32 master: DeepSpeed's mixed precision; default bf16), fp32, "
                  "pure_bf16 (bf16 weights and Adam moments, no master) or amp_bf16 (fp32 weights, bf16 autocast: torch AMP)")
      ->check(CLI::IsMember({"bf16", "fp16", "fp32", "pure_bf16", "amp_bf16"}));
  cmd->add_option("--micro-batch", args->micro_batch, "Sequences per GPU per step (default 1)")->check(CLI::Range(1, 1 << 20).description("1 to 1048576"));
  cmd->add_option("--grad-accum", args->gradient_accumulation,
                  "Gradient accumulation steps (default: the config's, else 1); above 1, ZeRO-1/2's optimizer offload keeps the summed gradients in host memory")
      ->check(CLI::Range(1, 1 << 20).description("1 to 1048576"));
  cmd->add_option("--seq-len", args->seq_len, "Tokens per sequence (default 2048)")->check(CLI::Range(1, 1 << 24).description("1 to 16777216"));
  cmd->add_flag("--gradient-checkpointing", args->gradient_checkpointing, "Recompute activations in the backward (--recompute full)");
  cmd->add_option("--recompute", args->recompute,
                  "none (default), selective (the attention's s x s scores, Korthikanti et al.) or full (each layer from its input)")
      ->check(CLI::IsMember({"none", "selective", "full"}));
  cmd->add_flag("--dropout", args->dropout, "Count dropout masks (default: when the model's config.json trains with dropout)");
  cmd->add_option("--tensor-parallel", args->tensor_parallel, "Megatron-style tensor-parallel degree t (default 1): layers split over t GPUs")
      ->check(CLI::Range(1, 1024).description("1 to 1024"));
  cmd->add_flag("--sequence-parallel", args->sequence_parallel, "Sequence parallelism over the tensor-parallel GPUs");
  cmd->add_option("--attention", args->attention, "flash (flash attention, SDPA; default) or eager (keeps the s x s scores)")
      ->check(CLI::IsMember({"flash", "eager"}));
  cmd->add_option("--host-mem", args->host_mem, "Host RAM per node: 64G, 512GB, 64GiB (default: this machine's, or its cgroup's limit)");
  cmd->add_option("--gpu-mem", args->gpu_mem, "Memory of one GPU: 80G, 24GiB (default: the GPUs here)");
  cmd->add_option("--rank-baseline", args->rank_baseline, "Host memory of one rank besides the model, as measured (default 4G, i.e. 4 GiB, assumed)");
  cmd->add_option("--deepspeed-version", args->deepspeed_version,
                  "DeepSpeed's version: from 0.18.7 ZeRO-1/2 init no longer stages the weights in host memory; before 0.14.3 its "
                  "ZeRO-2 estimator used 4Ψ + 16Ψ/N (default: a version between)");
  cmd->add_option("--device", args->device,
                  "gpu (default) or cpu: ranks that train on the CPU (gloo) keep their model states in host memory")
      ->check(CLI::IsMember({"gpu", "cpu"}));
  cmd->add_option("--save-format", args->save_format,
                  "safetensors (default: safetensors < 0.8 copies a shard on rank 0) or torch (torch.save: no copy)")
      ->check(CLI::IsMember({"safetensors", "torch"}));
  cmd->add_flag("--no-gpu", args->no_gpu, "Do not ask the GPU driver for the GPUs' memory");
  cmd->add_option("--format", args->format, "Output: text or json")->check(CLI::IsMember({"text", "json"}));
  cmd->callback([cmd] {
    if (cmd->count("--model") == 0 && cmd->count("--params") == 0) throw CLI::RequiredError("--model or --params");
  });
  return [args] { return run_estimate(*args); };
}

}  // namespace ftdiag::cli
