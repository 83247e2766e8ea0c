// Facts from configs and checkpoint folders: what rules need when only the
// files a job left beside it remain.
#include <doctest/doctest.h>

#include "evidence_builder.h"
#include "facts/extract.h"

using namespace ftdiag;
using namespace ftdiag::facts;
using namespace ftdiag::facts::testing;

namespace {

evidence::ConfigEvidence config(std::string kind, std::map<std::string, std::string> settings, std::string file = "cfg") {
  return evidence::ConfigEvidence{.from = {.collector = "configs", .file = std::move(file)}, .kind = std::move(kind), .settings = std::move(settings)};
}

evidence::CheckpointEvidence checkpoint(std::uint64_t step, Fact<bool> complete) {
  return evidence::CheckpointEvidence{.from = {.collector = "checkpoints", .file = "out/checkpoint-" + std::to_string(step)},
                                      .step = step, .files = 3, .bytes = 100, .complete = std::move(complete)};
}

evidence::EvidenceDocument with_host(std::vector<evidence::ConfigEvidence> configs, std::vector<evidence::CheckpointEvidence> checkpoints = {}) {
  evidence::EvidenceDocument document;
  auto& host = evidence::host_named(document, "");
  host.configs = std::move(configs);
  host.checkpoints = std::move(checkpoints);
  return document;
}

}  // namespace

TEST_CASE("config facts: a whole DeepSpeed config and the command that used it") {
  const auto facts = extract_facts(with_host({
      config("launch-command", {{"launcher", "deepspeed"}, {"launcher_args.num_gpus", "8"}, {"launcher_args.num_nodes", "3"},
                                {"args.save_steps", "1000"}, {"args.bf16", "True"}, {"args.model_name_or_path", "/m/Llama-2-70b-hf"}}, "run.sh"),
      config("deepspeed", {{"train_micro_batch_size_per_gpu", "auto"}, {"zero_optimization.stage", "3"},
                           {"zero_optimization.stage3_gather_16bit_weights_on_model_save", "false"}}, "ds.json"),
  }));
  CHECK(value_of<std::int64_t>(facts, "config.zero_stage") == 3);
  CHECK(facts.get("config.zero_stage").pointer == "/hosts/0/configs/1/settings/zero_optimization.stage");
  CHECK(value_of<std::string>(facts, "config.offload_optimizer") == "none");  // a whole config without offload
  CHECK_FALSE(value_of<bool>(facts, "config.gather_16bit_weights_on_save"));
  CHECK(value_of<std::string>(facts, "config.precision") == "bf16");
  CHECK(value_of<std::int64_t>(facts, "config.gpus_per_node") == 8);
  CHECK(value_of<std::int64_t>(facts, "config.nodes") == 3);
  CHECK(value_of<std::int64_t>(facts, "config.save_steps") == 1000);
  CHECK(value_of<std::string>(facts, "config.model") == "/m/Llama-2-70b-hf");
  CHECK(value_of<std::string>(facts, "config.sources") == "launch-command (run.sh), deepspeed (ds.json)");
}

TEST_CASE("config facts: when the Trainer saves, and how many micro-batches it accumulates") {
  const auto facts = extract_facts(with_host({
      config("llamafactory", {{"stage", "sft"}, {"finetuning_type", "lora"}, {"template", "qwen"}, {"save_strategy", "Epoch"},
                              {"gradient_accumulation_steps", "8"}}),
      config("deepspeed", {{"zero_optimization.stage", "2"}, {"gradient_accumulation_steps", "auto"}}),
  }));
  CHECK(value_of<std::string>(facts, "config.save_strategy") == "epoch");
  CHECK(value_of<std::int64_t>(facts, "config.gradient_accumulation_steps") == 8);
  // "auto" is the trainer's to say: from the DeepSpeed config alone, nothing.
  const auto automatic = extract_facts(with_host({config("deepspeed", {{"zero_optimization.stage", "2"}, {"gradient_accumulation_steps", "auto"}})}));
  CHECK_FALSE(automatic.get("config.gradient_accumulation_steps").value);
}

TEST_CASE("config facts: a pasted zero_optimization fragment does not say offload is off") {
  const auto facts = extract_facts(with_host({config("deepspeed", {{"zero_optimization.stage", "2"}})}));
  CHECK(value_of<std::int64_t>(facts, "config.zero_stage") == 2);
  const auto& offload = facts.get("config.offload_optimizer").value;
  REQUIRE_FALSE(offload);
  CHECK(offload.missing().detail.find("fragment") != std::string::npos);
  const auto nvme = extract_facts(with_host({config("deepspeed", {{"zero_optimization.offload_param.device", "nvme"}})}));
  CHECK(value_of<std::string>(nvme, "config.offload_param") == "nvme");
}

TEST_CASE("config facts: accelerate's config, a QLoRA recipe and a hostfile") {
  const auto facts = extract_facts(with_host({
      config("accelerate", {{"deepspeed_config.zero_stage", "3"}, {"deepspeed_config.offload_optimizer_device", "cpu"},
                            {"deepspeed_config.zero3_save_16bit_model", "true"}, {"mixed_precision", "no"}, {"num_processes", "16"},
                            {"num_machines", "2"}}),
      config("llamafactory", {{"finetuning_type", "lora"}, {"quantization_bit", "4"}, {"model_name_or_path", "meta-llama/Llama-3-8B"}}),
  }));
  CHECK(value_of<std::string>(facts, "config.offload_optimizer") == "cpu");
  CHECK(value_of<bool>(facts, "config.gather_16bit_weights_on_save"));
  CHECK(value_of<std::string>(facts, "config.precision") == "fp32");
  CHECK(value_of<std::string>(facts, "config.finetuning") == "qlora");
  CHECK(value_of<std::int64_t>(facts, "config.nodes") == 2);
  CHECK(value_of<std::int64_t>(facts, "config.gpus_per_node") == 8);
  const auto hosts = extract_facts(with_host({config("hostfile", {{"hosts.0.slots", "4"}, {"host_count", "2"}})}));
  CHECK(value_of<std::int64_t>(hosts, "config.gpus_per_node") == 4);
  CHECK(value_of<std::int64_t>(hosts, "config.nodes") == 2);
  const auto include = extract_facts(with_host({config("launch-command", {{"launcher_args.include", "localhost:0,1"}})}));
  CHECK(value_of<std::int64_t>(include, "config.gpus_per_node") == 2);
}

TEST_CASE("config facts: checkpoints, the trainer state and the save the job was heading for") {
  const auto facts = extract_facts(with_host(
      {config("trainer-state", {{"global_step", "1000"}, {"max_steps", "5000"}, {"save_steps", "500"}}, "out/checkpoint-1000/trainer_state.json"),
       config("trainer-state", {{"global_step", "500"}, {"max_steps", "5000"}}, "out/checkpoint-500/trainer_state.json")},
      {checkpoint(500, true), checkpoint(1000, true),
       checkpoint(1500, Missing{MissingReason::unparseable, "model.safetensors is truncated: 10 bytes of 4096"})}));
  CHECK(value_of<std::int64_t>(facts, "trainer.global_step") == 1000);
  CHECK(value_of<std::int64_t>(facts, "trainer.max_steps") == 5000);
  CHECK(value_of<std::int64_t>(facts, "checkpoint.count") == 3);
  CHECK(value_of<std::int64_t>(facts, "checkpoint.last_step") == 1500);
  CHECK(value_of<std::int64_t>(facts, "checkpoint.last_complete_step") == 1000);
  CHECK(value_of<bool>(facts, "checkpoint.incomplete"));
  CHECK(value_of<std::string>(facts, "checkpoint.incomplete_path") == "out/checkpoint-1500");
  CHECK(value_of<std::string>(facts, "checkpoint.incomplete_reason").find("truncated") != std::string::npos);
  CHECK(facts.get("checkpoint.incomplete").pointer == "/hosts/0/checkpoints/2/complete");
  CHECK(value_of<std::int64_t>(facts, "trainer.next_save_step") == 1500);
}

TEST_CASE("config facts: a folder that could not be read is neither whole nor cut") {
  const auto facts = extract_facts(with_host({}, {checkpoint(10, Missing{MissingReason::permission_denied, "list out: Permission denied"})}));
  CHECK(value_of<std::int64_t>(facts, "checkpoint.count") == 1);
  CHECK_FALSE(facts.get("checkpoint.incomplete").value);
  CHECK_FALSE(facts.get("checkpoint.last_complete_step").value);
  const auto whole = extract_facts(with_host({}, {checkpoint(10, true)}));
  CHECK_FALSE(value_of<bool>(whole, "checkpoint.incomplete"));
}

TEST_CASE("config facts: a DeepSpeed config's \"auto\" precision is the trainer's, never fp32") {
  const auto auto_config = config("deepspeed", {{"bf16.enabled", "auto"}, {"fp16.enabled", "auto"}, {"zero_optimization.stage", "2"},
                                                {"train_micro_batch_size_per_gpu", "auto"}, {"gradient_accumulation_steps", "auto"}},
                                  "ds_z2_config.json");
  SUBCASE("the launch command's --bf16 decides") {
    const auto facts = extract_facts(with_host({config("launch-command", {{"launcher", "torchrun"}, {"args.bf16", "True"}}, "run.sh"), auto_config}));
    CHECK(value_of<std::string>(facts, "config.precision") == "bf16");
  }
  SUBCASE("LLaMA-Factory's recipe decides") {
    const auto facts = extract_facts(with_host({auto_config, config("llamafactory", {{"fp16", "true"}}, "llama3_full_sft.yaml")}));
    CHECK(value_of<std::string>(facts, "config.precision") == "fp16");
  }
  SUBCASE("nothing decides: unknown, and why") {
    const auto facts = extract_facts(with_host({auto_config}));
    CHECK_FALSE(facts.value_of<std::string>("config.precision").has_value());
    CHECK(missing_reason(facts, "config.precision").find("\"auto\" (the trainer's arguments decide)") != std::string::npos);
  }
}
