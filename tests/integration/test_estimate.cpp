// `ftdiag estimate` end to end: the JSON contract (docs/report-json.md,
// "Estimate"), flags over a DeepSpeed config, the advice on a node whose RAM
// a ZeRO-2 save outgrows, and bad input with its documented exit codes.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "integration/harness.h"

namespace ftdiag::itest {
namespace {

struct Estimate {
  Outcome outcome;
  json report;
};

Estimate estimate(std::vector<std::string> args) {
  std::vector<std::string> argv{ftdiag_binary().string(), "estimate", "--no-gpu"};
  argv.insert(argv.end(), args.begin(), args.end());
  Estimate e;
  e.outcome = run(Launch{argv}, 60);
  if (e.outcome.exited_with(0) && !e.outcome.out.empty() && e.outcome.out.front() == '{') e.report = json::parse(e.outcome.out);
  return e;
}

}  // namespace

TEST_CASE("estimate: 7B full fine-tuning under ZeRO-2 on 8 GPUs and a 64 GiB node: the save needs 149 GB, ZeRO-3 is advised") {
  auto e = estimate({"--params", "7B", "--zero-stage", "2", "--gpus-per-node", "8", "--host-mem", "64G", "--gpu-mem", "80G",
                     "--deepspeed-version", "0.18.7", "--rank-baseline", "4GB", "--format", "json"});
  REQUIRE_MESSAGE(e.outcome.exited_with(0), e.outcome.describe());
  auto& r = e.report;
  CHECK(r["schema_version"] == 1);
  CHECK(r["model"]["parameters"] == 7000000000LL);
  CHECK(r["per_gpu"]["model_states_bytes"] == 26250000000LL);  // 2Ψ + 14Ψ/8
  // A bare count takes a typical decoder's dimensions, and says whose.
  CHECK(r["model"]["dimensions_assumed_from"] == "Llama-2-7B");
  CHECK(r["per_gpu"]["activations_bytes"].get<std::int64_t>() > 0);
  CHECK(r["per_gpu"]["total_bytes"].get<std::int64_t>() > r["per_gpu"]["model_states_bytes"].get<std::int64_t>());
  CHECK(r["per_node_host"]["steady_bytes"] == 32000000000LL);
  CHECK(r["per_node_host"]["checkpoint_save_peak_bytes"] == 149000000000LL);
  CHECK(r["per_node_host"]["checkpoint_save_largest_phase"] == "every rank's copy of the state dict");
  CHECK(r["advice"]["zero_stage"] == 3);
  CHECK(r["advice"]["offload_optimizer"] == false);
  bool says_why = false;
  for (auto& reason : r["advice"]["reasons"]) {
    says_why |= reason.get<std::string>().find("needs 138.8 GiB of host RAM per node at its checkpoint save; this node has 64.0 GiB") != std::string::npos;
  }
  CHECK_MESSAGE(says_why, r["advice"]["reasons"].dump());
  // DeepSpeed's own estimator for the stage, its matching row marked.
  auto& rows = r["deepspeed_estimator"]["rows"];
  REQUIRE(rows.size() == 2);
  CHECK(rows[1]["matches_setup"] == true);
  CHECK(rows[1]["gpu_bytes"] == 14000000000LL + 15750000000LL);  // 2Ψ + 18Ψ/8
}

TEST_CASE("estimate: the DeepSpeed config sets the setup and the flags override it") {
  TempDir tmp;
  const auto config = tmp / "ds_z3_offload.json";
  write_text(config, R"({"train_micro_batch_size_per_gpu": "auto", "bf16": {"enabled": true},
    "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu", "pin_memory": true},
                          "offload_param": {"device": "none"}, "stage3_gather_16bit_weights_on_model_save": true}})");
  auto from_config = estimate({"--params", "13B", "--deepspeed", config.string(), "--gpus-per-node", "4", "--host-mem", "512G", "--rank-baseline", "4GB",
                           "--format", "json"});
  REQUIRE_MESSAGE(from_config.outcome.exited_with(0), from_config.outcome.describe());
  auto& setup = from_config.report["setup"];
  CHECK(setup["zero_stage"] == 3);
  CHECK(setup["offload_optimizer"] == true);
  CHECK(setup["offload_param"] == false);
  CHECK(setup["gpus_per_node"] == 4);
  // ZeRO-3 with the optimizer offloaded: 2Ψ/N of weights on each GPU; 18Ψ of offloaded states on the node.
  CHECK(from_config.report["per_gpu"]["model_states_bytes"] == 6500000000LL);
  CHECK(from_config.report["per_node_host"]["steady_bytes"] == 16000000000LL + 18 * 13000000000LL);

  auto overridden = estimate({"--params", "13B", "--deepspeed", config.string(), "--gpus-per-node", "4", "--zero-stage", "2",
                              "--host-mem", "512G", "--format", "json"});
  REQUIRE_MESSAGE(overridden.outcome.exited_with(0), overridden.outcome.describe());
  CHECK(overridden.report["setup"]["zero_stage"] == 2);
  CHECK(overridden.report["setup"]["offload_optimizer"] == true);  // the config's, not overridden
}

TEST_CASE("estimate: the text table names every figure, DeepSpeed's rows and the advice") {
  auto e = estimate({"--params", "3B", "--gpus-per-node", "8", "--host-mem", "64G", "--gpu-mem", "80G"});
  REQUIRE_MESSAGE(e.outcome.exited_with(0), e.outcome.describe());
  for (const char* text : {"Per GPU", "optimizer states", "Host RAM per node", "checkpoint save", "every rank's copy of the state dict",
                           "DeepSpeed's estimator", "offload_optimizer=none", "Advice", "ZeRO-3, 16-bit gather on save"}) {
    CHECK_MESSAGE(e.outcome.out.find(text) != std::string::npos, text, "\n", e.outcome.out);
  }
}

TEST_CASE("estimate: bad input gets a clear message and its exit code") {
  TempDir tmp;
  // Usage (2): neither --model nor --params; both; a count that is not one; LoRA without the model's layers.
  CHECK(estimate({}).outcome.exited_with(2));
  CHECK(estimate({"--params", "7B", "--model", tmp.path().string()}).outcome.exited_with(2));
  auto garbage = estimate({"--params", "seven"});
  CHECK(garbage.outcome.exited_with(2));
  CHECK(garbage.outcome.err.find("--params seven") != std::string::npos);
  CHECK(estimate({"--params", "7B", "--gpus-per-node", "8", "--tensor-parallel", "3"}).outcome.exited_with(2));
  CHECK(estimate({"--params", "7B", "--sequence-parallel"}).outcome.exited_with(2));
  CHECK(estimate({"--params", "7B", "--zero-stage", "2", "--offload-param"}).outcome.exited_with(2));
  CHECK(estimate({"--params", "7B", "--host-mem", "lots"}).outcome.exited_with(2));
  // Not found (3): a missing config or model folder; a folder with nothing to size the model by.
  CHECK(estimate({"--params", "7B", "--deepspeed", (tmp / "missing.json").string()}).outcome.exited_with(3));
  CHECK(estimate({"--model", (tmp / "missing").string()}).outcome.exited_with(3));
  auto empty = estimate({"--model", tmp.path().string()});
  CHECK(empty.outcome.exited_with(3));
  CHECK(empty.outcome.err.find("config.json") != std::string::npos);
  // Unreadable (4): a DeepSpeed config that is not JSON, binary garbage as config.json.
  write_text(tmp / "broken.json", "{\"zero_optimization\": {\"stage\": 2,");
  auto broken = estimate({"--params", "7B", "--deepspeed", (tmp / "broken.json").string()});
  CHECK(broken.outcome.exited_with(4));
  CHECK(broken.outcome.err.find("broken.json") != std::string::npos);
  write_text(tmp / "config.json", std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10));
  CHECK(estimate({"--model", tmp.path().string()}).outcome.exited_with(4));
}

TEST_CASE("estimate: a ZeRO stage DeepSpeed refuses is an unusable input, never read as the default stage") {
  TempDir tmp;
  for (const char* stage : {"\"three\"", "7", "-1", "2.5", "[2]", "{\"x\": 1}"}) {
    CAPTURE(stage);
    write_text(tmp / "ds.json", std::string("{\"zero_optimization\": {\"stage\": ") + stage + "}, \"bf16\": {\"enabled\": true}}");
    auto refused = estimate({"--params", "7B", "--deepspeed", (tmp / "ds.json").string()});
    CHECK_MESSAGE(refused.outcome.exited_with(4), refused.outcome.describe());
    CHECK(refused.outcome.err.find("ZeRO stage") != std::string::npos);
    CHECK(refused.outcome.err.find("0, 1, 2 and 3") != std::string::npos);
    // --zero-stage given says the stage; the config's is then not used.
    CHECK(estimate({"--params", "7B", "--deepspeed", (tmp / "ds.json").string(), "--zero-stage", "3"}).outcome.exited_with(0));
  }
}

TEST_CASE("estimate: a config.json with a negative hidden_size is a damaged input that names the key, not an unknown architecture") {
  TempDir tmp;
  write_text(tmp / "config.json", R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
    "hidden_size": -4096, "intermediate_size": 11008, "num_attention_heads": 32, "num_hidden_layers": 32,
    "num_key_value_heads": 32, "vocab_size": 32000, "torch_dtype": "bfloat16"})");
  auto damaged = estimate({"--model", tmp.path().string()});
  CHECK_MESSAGE(damaged.outcome.exited_with(4), damaged.outcome.describe());
  CHECK(damaged.outcome.err.find("hidden_size") != std::string::npos);
  CHECK(damaged.outcome.err.find("architecture") == std::string::npos);
}

TEST_CASE("estimate: transformers' ds_z2_config.json with \"auto\" precision is not fp32: bf16 is assumed and said to be") {
  TempDir tmp;
  write_text(tmp / "config.json", R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
    "hidden_size": 4096, "intermediate_size": 11008, "num_attention_heads": 32, "num_hidden_layers": 32,
    "num_key_value_heads": 32, "vocab_size": 32000, "torch_dtype": "float16"})");
  write_text(tmp / "ds_z2_config.json", R"({"fp16": {"enabled": "auto"}, "bf16": {"enabled": "auto"},
    "zero_optimization": {"stage": 2, "overlap_comm": true}, "train_micro_batch_size_per_gpu": "auto"})");
  auto e = estimate({"--model", tmp.path().string(), "--deepspeed", (tmp / "ds_z2_config.json").string(), "--gpus-per-node", "8"});
  REQUIRE_MESSAGE(e.outcome.exited_with(0), e.outcome.describe());
  CHECK(e.outcome.out.find("Setup: ZeRO-2 on 8 GPUs per node x 1 node, bf16,") != std::string::npos);
  // fp32 only where DeepSpeed's step keeps fp32 gradients, never as the precision.
  CHECK(e.outcome.out.find(", fp32,") == std::string::npos);
  CHECK(e.outcome.out.find("4 B x 6.74 B\n") == std::string::npos);  // the weights row in fp32
  CHECK(e.outcome.err.find("are \"auto\" (the trainer's arguments decide)") != std::string::npos);
  CHECK(e.outcome.err.find("bf16 is assumed (--dtype to choose)") != std::string::npos);
  // --dtype decides, and nothing is assumed.
  auto chosen = estimate({"--model", tmp.path().string(), "--deepspeed", (tmp / "ds_z2_config.json").string(), "--dtype", "fp16"});
  REQUIRE_MESSAGE(chosen.outcome.exited_with(0), chosen.outcome.describe());
  CHECK(chosen.outcome.err.find("assumed") == std::string::npos);
}


TEST_CASE("estimate: --deepspeed-version before 0.14.3 shows DeepSpeed's documented ZeRO-2 table, and says which formula") {
  auto old = estimate({"--params", "2851M", "--zero-stage", "2", "--gpus-per-node", "8", "--no-gpu", "--host-mem", "512G",
                       "--deepspeed-version", "0.14.0"});
  REQUIRE_MESSAGE(old.outcome.exited_with(0), old.outcome.describe());
  // docs/code-docs/source/memory.rst, t5-3b on one node of 8 GPUs.
  CHECK(old.outcome.out.find("127.45GB |  15.93GB | offload_optimizer=none") != std::string::npos);
  CHECK(old.outcome.out.find("DeepSpeed before 0.14.3: 4Ψ + 16Ψ/N") != std::string::npos);
  auto current = estimate({"--params", "2851M", "--zero-stage", "2", "--gpus-per-node", "8", "--no-gpu", "--host-mem", "512G"});
  REQUIRE_MESSAGE(current.outcome.exited_with(0), current.outcome.describe());
  CHECK(current.outcome.out.find("127.45GB |  11.28GB | offload_optimizer=none") != std::string::npos);
  // ftdiag's own per-GPU states and step agree with the current formula: 10.7 GB + 1.4 GB.
  CHECK(current.outcome.out.find("optimizer step") != std::string::npos);
  auto bad = estimate({"--params", "3B", "--deepspeed-version", "latest"});
  CHECK(bad.outcome.exited_with(2));
  CHECK(bad.outcome.err.find("is not a version") != std::string::npos);
}

TEST_CASE("estimate: a bare count with LoRA takes a typical decoder's layers for the adapters, and says it is assumed") {
  auto lora = estimate({"--params", "7B", "--finetune", "lora", "--no-gpu", "--host-mem", "64G", "--format", "json"});
  REQUIRE_MESSAGE(lora.outcome.exited_with(0), lora.outcome.describe());
  auto& model = lora.report["model"];
  CHECK(model["parameters"] == 7000000000LL);  // the count given, not the typical model's
  CHECK(model["dimensions_assumed_from"] == "Llama-2-7B");
  // Rank 8 over q, k, v, o, gate, up, down of Llama-2-7B's 32 layers: 8 x (4 x 8192 + 3 x 15104) x 32 = 20.0 M.
  CHECK(model["trainable_parameters"] == 8LL * (4 * 8192 + 3 * 15104) * 32);
  auto text = estimate({"--params", "7B", "--finetune", "lora", "--no-gpu", "--host-mem", "64G"});
  CHECK(text.outcome.out.find("its layers assumed to be Llama-2-7B's: --model DIR for its own") != std::string::npos);
  // DeepSpeed's estimator counts the frozen base as trained: said under its rows.
  CHECK(text.outcome.out.find("frozen parameters as trained, with gradients and Adam states: an upper bound for lora") != std::string::npos);
  // 70B takes Llama-2-70B's, 1.5B Qwen2.5-1.5B's.
  CHECK(estimate({"--params", "70B", "--no-gpu", "--format", "json"}).report["model"]["dimensions_assumed_from"] == "Llama-2-70B");
  CHECK(estimate({"--params", "1.5B", "--no-gpu", "--format", "json"}).report["model"]["dimensions_assumed_from"] == "Qwen2.5-1.5B");
}

TEST_CASE("estimate: DeepSpeed's ZeRO-2 rows beside ZeRO-0 mark no row as this setup, a save with nothing to add says so") {
  auto zero0 = estimate({"--params", "1B", "--zero-stage", "0", "--gpus-per-node", "2", "--no-gpu", "--host-mem", "64G"});
  REQUIRE_MESSAGE(zero0.outcome.exited_with(0), zero0.outcome.describe());
  CHECK(zero0.outcome.out.find("<- this setup") == std::string::npos);
  auto zero2 = estimate({"--params", "1B", "--zero-stage", "2", "--gpus-per-node", "2", "--no-gpu", "--host-mem", "64G"});
  CHECK(zero2.outcome.out.find("<- this setup") != std::string::npos);
  // ZeRO-3 with the optimizer offloaded and no 16-bit gather: the save copies nothing more.
  TempDir tmp;
  write_text(tmp / "ds.json", R"({"zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"},
    "stage3_gather_16bit_weights_on_model_save": false}, "bf16": {"enabled": true}})");
  auto nothing = estimate({"--params", "1B", "--deepspeed", (tmp / "ds.json").string(), "--gpus-per-node", "2", "--no-gpu",
                           "--host-mem", "64G"});
  REQUIRE_MESSAGE(nothing.outcome.exited_with(0), nothing.outcome.describe());
  CHECK(nothing.outcome.out.find("(nothing beyond the steady figure)") != std::string::npos);
  CHECK(nothing.outcome.out.find("0 B   the optimizer partitions (the peak)") == std::string::npos);
}

}  // namespace ftdiag::itest
