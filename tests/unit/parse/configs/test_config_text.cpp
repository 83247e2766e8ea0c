// Configs as they reach a post-mortem: whole files, fragments pasted into a
// report, launch commands, hostfiles, accelerate's config inside `accelerate
// env`. The fragments below have the shapes users paste.
#include <doctest/doctest.h>

#include <string>

#include "parse/configs/brace_fragment.h"
#include "parse/configs/config_kind.h"
#include "parse/configs/config_text.h"
#include "parse/configs/hostfile.h"
#include "parse/configs/launch_command.h"
#include "parse/configs/trainer_state.h"
#include "parse/configs/yaml_lines.h"

using namespace ftdiag;
using namespace ftdiag::parse;

namespace {

ConfigReading read(std::string_view text) {
  auto reading = read_config_text(text);
  REQUIRE(reading.has_value());
  return *reading;
}

}  // namespace

TEST_CASE("config_text: a zero_optimization section pasted without its braces") {
  const auto reading = read(R"(    "zero_optimization": {
        "stage": 2,
        "offload_optimizer": {
            "device": "cpu",
            "pin_memory": true
        },
        "allgather_bucket_size": 2e8,
        "contiguous_gradients": true
    },
)");
  CHECK(reading.kind == "deepspeed");
  CHECK(reading.settings.at("zero_optimization.stage") == "2");
  CHECK(reading.settings.at("zero_optimization.offload_optimizer.device") == "cpu");
  CHECK(reading.settings.at("zero_optimization.allgather_bucket_size") == "2e8");
  CHECK(reading.note.find("read as a fragment") != std::string::npos);
}

TEST_CASE("config_text: a fragment cut mid-object keeps what it holds") {
  const auto reading = read("\"zero_optimization\": {\n\"stage\": 3,\n\"offload_param\": {\n\"device\": \"nvme\",\n\"buffer_size\": 1e9,\n");
  CHECK(reading.kind == "deepspeed");
  CHECK(reading.settings.at("zero_optimization.stage") == "3");
  CHECK(reading.settings.at("zero_optimization.offload_param.device") == "nvme");
  CHECK(reading.settings.at("zero_optimization.offload_param.buffer_size") == "1e9");
  // "sub_group_size": 1e9, then EOF
  const auto cut = read_brace_fragment("\"zero_optimization\": {\n \"stage\": 2,\n \"sub_group_size\": 1e9,");
  CHECK(cut.settings.at("zero_optimization.sub_group_size") == "1e9");
  CHECK(cut.stopped.empty());
}

TEST_CASE("brace_fragment: Python's repr of a dict, and closes the fragment never opened") {
  auto s = read_brace_fragment("{'zero_stage': 3, 'offload_optimizer_device': 'cpu', 'zero3_init_flag': True, 'x': None, 'l': [1, 'a']}").settings;
  CHECK(s.at("zero_stage") == "3");
  CHECK(s.at("offload_optimizer_device") == "cpu");
  CHECK(s.at("zero3_init_flag") == "true");
  CHECK(s.at("x") == "null");
  CHECK(s.at("l.1") == "a");
  s = read_brace_fragment("\"stage\": 3\n},\n\"bf16\": {\"enabled\": true}, // on\n\"steps\": [],").settings;
  CHECK(s.at("stage") == "3");
  CHECK(s.at("bf16.enabled") == "true");
  CHECK(s.at("steps") == "[]");
}

TEST_CASE("brace_fragment: bounds, garbage and a 10 MB line") {
  auto deep = read_brace_fragment("{\"a\": " + std::string(1000, '[') );
  CHECK(deep.stopped.find("nested deeper") != std::string::npos);
  std::string many = "{";
  for (int i = 0; i < 10050; ++i) many += "\"k" + std::to_string(i) + "\": 1,";
  CHECK(read_brace_fragment(many).stopped.find("more than") != std::string::npos);
  std::string garbage;
  for (int i = 0; i < 65536; ++i) garbage.push_back(static_cast<char>((i * 167 + 13) & 0xff));
  CHECK_NOTHROW(read_brace_fragment(garbage));
  CHECK_NOTHROW(read_yaml_lines(garbage));
  CHECK_NOTHROW(read_launch_command(garbage));
  CHECK_NOTHROW(read_config_text(garbage));
  const auto line = read_brace_fragment("{\"v\": \"" + std::string(10 << 20, 'x') + "\"}");
  CHECK(line.settings.at("v").size() == (10u << 20));
}

TEST_CASE("config_text: accelerate's config inside an `accelerate env` report") {
  const auto reading = read(R"(- `Accelerate` version: 0.27.2
- Platform: Linux-5.15.0-1058-aws-x86_64-with-glibc2.31
- Python version: 3.10.14
- `Accelerate` default config:
        - compute_environment: LOCAL_MACHINE
        - distributed_type: DEEPSPEED
        - mixed_precision: bf16
        - num_processes: 4
        - deepspeed_config: {'gradient_accumulation_steps': 1, 'offload_optimizer_device': 'cpu', 'offload_param_device': 'cpu', 'zero3_init_flag': True, 'zero3_save_16bit_model': True, 'zero_stage': 3}
        - downcast_bf16: no
)");
  CHECK(reading.kind == "accelerate");
  CHECK(reading.settings.at("deepspeed_config.zero_stage") == "3");
  CHECK(reading.settings.at("deepspeed_config.zero3_save_16bit_model") == "true");
  CHECK(reading.settings.at("num_processes") == "4");
  CHECK(reading.settings.count("Python version") == 0);
}

TEST_CASE("yaml_lines: nesting by indentation, lists, comments") {
  auto s = read_yaml_lines("model:\n  name: llama  # the base\n  layers:\n    - q_proj\n    - v_proj\nempty:\nurl: http://x\n").settings;
  CHECK(s.at("model.name") == "llama");
  CHECK(s.at("model.layers.0") == "q_proj");
  CHECK(s.at("model.layers.1") == "v_proj");
  CHECK(s.at("empty") == "null");
  CHECK(s.at("url") == "http://x");
}

TEST_CASE("launch_command: deepspeed over three nodes, with continuations") {
  auto s = read_launch_command(R"(deepspeed --num_gpus 8 \
    --num_nodes 3 \
    --hostfile /mnt/configs/hostfile.txt \
    train.py \
    --model_name_or_path /mnt/model/Llama-2-70b-hf  \
    --output_dir  /mnt/output/70B/\
    --per_device_train_batch_size 64 \
    --gradient_checkpointing \
    --deepspeed "./configs/ds z3.json" \
    --bf16 True)");
  REQUIRE(s);
  CHECK(s->at("launcher") == "deepspeed");
  CHECK(s->at("launcher_args.num_gpus") == "8");
  CHECK(s->at("launcher_args.num_nodes") == "3");
  CHECK(s->at("launcher_args.hostfile") == "/mnt/configs/hostfile.txt");
  CHECK(s->at("script") == "train.py");
  CHECK(s->at("args.model_name_or_path") == "/mnt/model/Llama-2-70b-hf");
  CHECK(s->at("args.output_dir") == "/mnt/output/70B/");
  CHECK(s->at("args.gradient_checkpointing") == "true");
  CHECK(s->at("args.deepspeed") == "./configs/ds z3.json");
  CHECK(s->at("args.bf16") == "True");
}

TEST_CASE("launch_command: torchrun inside prose, with the environment before it") {
  auto s = read_launch_command(
      "- Command: `NCCL_SOCKET_IFNAME=eno1 CUDA_VISIBLE_DEVICES=1,2 torchrun --master_addr=127.0.0.1 --nproc-per-node=2 train_ddp.py`");
  REQUIRE(s);
  CHECK(s->at("launcher") == "torchrun");
  CHECK(s->at("env.CUDA_VISIBLE_DEVICES") == "1,2");
  CHECK(s->at("launcher_args.nproc_per_node") == "2");
  CHECK(s->at("script") == "train_ddp.py");
}

TEST_CASE("launch_command: the other launchers") {
  auto s = read_launch_command("cd /work && python -m torch.distributed.run --nnodes 2 --nproc_per_node 4 finetune.py --save_steps 500 && echo done");
  REQUIRE(s);
  CHECK(s->at("launcher") == "torch.distributed.run");
  CHECK(s->at("launcher_args.nnodes") == "2");
  CHECK(s->at("args.save_steps") == "500");
  CHECK(s->count("args.positional.0") == 0);  // "echo done" is another command
  s = read_launch_command("accelerate launch --config_file accel.yaml --use_deepspeed --num_processes 8 train.py --lr -1");
  REQUIRE(s);
  CHECK(s->at("launcher") == "accelerate");
  CHECK(s->at("launcher_args.use_deepspeed") == "true");
  CHECK(s->at("script") == "train.py");
  CHECK(s->at("args.lr") == "-1");
  s = read_launch_command("FORCE_TORCHRUN=1 llamafactory-cli train examples/train_lora/llama3_lora_sft.yaml");
  REQUIRE(s);
  CHECK(s->at("subcommand") == "train");
  CHECK(s->at("script") == "examples/train_lora/llama3_lora_sft.yaml");
  s = read_launch_command("python3 -m axolotl.cli.train examples/openllama-3b/lora.yml");
  REQUIRE(s);
  CHECK(s->at("launcher") == "axolotl");
  CHECK_FALSE(read_launch_command("- Dataset: Capybara (2000 training, 200 validation)\n- Batch size: 16/device"));
  s = read_launch_command("NPROC_PER_NODE=2 \\\nswift sft \\\n    --model_type glm4v-9b-chat \\\n    --save_steps 1 \\\n    --deepspeed zero3-offload");
  REQUIRE(s);
  CHECK(s->at("launcher") == "swift");
  CHECK(s->at("subcommand") == "sft");
  CHECK(s->at("args.save_steps") == "1");
  CHECK(s->at("args.deepspeed") == "zero3-offload");
  CHECK(s->at("env.NPROC_PER_NODE") == "2");
  CHECK_FALSE(read_launch_command("swift build -c release"));  // Apple's Swift
}

TEST_CASE("launch_command: a bare \"--\" ends the options, and a run of dashes is no option") {
  auto s = read_launch_command("python eval.py --config config/cocostuff.yaml -- model-path. /checkpoint_final.PTH");
  REQUIRE(s);
  CHECK(s->at("script") == "eval.py");
  CHECK(s->at("args.config") == "config/cocostuff.yaml");
  CHECK(s->at("args.positional.0") == "model-path.");
  CHECK(s->at("args.positional.1") == "/checkpoint_final.PTH");
  CHECK(read_launch_command("python eval.py --").has_value());
  CHECK(read_launch_command("python eval.py --- ---- -").has_value());
  s = read_launch_command("torchrun --nproc_per_node 2 -- train.py --lr 1e-4");
  REQUIRE(s);
  CHECK(s->at("script") == "train.py");
  CHECK(s->at("args.lr") == "1e-4");
}

TEST_CASE("hostfile: host slots=N lines, and nothing else") {
  auto s = read_hostfile("192.168.0.6 slots=8\n192.168.0.32 slots=8\n# spare\n192.168.0.23 slots=8\n");
  REQUIRE(s);
  CHECK(s->at("host_count") == "3");
  CHECK(s->at("slots_total") == "24");
  CHECK(s->at("hosts.1.name") == "192.168.0.32");
  CHECK_FALSE(read_hostfile("192.168.0.6 slots=8\nsomething else\n"));
  CHECK_FALSE(read_hostfile("\n\n"));
  CHECK(read(std::string("worker-1 slots=4\n")).kind == "hostfile");
}

TEST_CASE("config_kind: each kind from its keys") {
  CHECK(config_kind({{"global_step", "10"}, {"log_history.length", "3"}}) == "trainer-state");
  CHECK(config_kind({{"distributed_type", "DEEPSPEED"}, {"deepspeed_config.zero_stage", "3"}}) == "accelerate");
  CHECK(config_kind({{"train_micro_batch_size_per_gpu", "auto"}}) == "deepspeed");
  CHECK(config_kind({{"stage", "sft"}, {"template", "llama3"}, {"finetuning_type", "lora"}}) == "llamafactory");
  CHECK(config_kind({{"base_model", "x"}, {"adapter", "lora"}}) == "axolotl");
  CHECK(config_kind({{"peft_type", "LORA"}, {"r", "8"}}) == "peft-adapter");
  CHECK(config_kind({{"architectures.0", "LlamaForCausalLM"}, {"hidden_size", "4096"}}) == "model-config");
  CHECK(config_kind({{"output_dir", "out"}, {"save_steps", "500"}}) == "trainer-arguments");
  CHECK_FALSE(config_kind({{"name", "my-dataset"}, {"rows", "100"}}));
  CHECK_FALSE(read_config_text("[{\"instruction\": \"a\", \"output\": \"b\"}]"));
  CHECK_FALSE(read_config_text("just a line of prose\n"));
}

TEST_CASE("trainer_state: log_history keeps its length and last entry") {
  std::string state = R"({"best_metric": null, "epoch": 1.5, "global_step": 1500, "max_steps": 3000, "save_steps": 500, "log_history": [)";
  for (int i = 1; i <= 20000; ++i) state += (i > 1 ? "," : "") + std::string(R"({"epoch": 0.1, "loss": 1.25, "step": )") + std::to_string(i) + "}";
  state += "]}";
  auto s = read_trainer_state(state);
  REQUIRE(s);
  CHECK(s->at("global_step") == "1500");
  CHECK(s->at("log_history.length") == "20000");
  CHECK(s->at("log_history.last.step") == "20000");
  CHECK(s->at("log_history.last.loss") == "1.25");
  CHECK(s->size() < 20);
  const auto reading = read(state);
  CHECK(reading.kind == "trainer-state");
  auto bad = read_trainer_state("{\"global_step\": 5, \"log_history\": [");
  REQUIRE_FALSE(bad);
  CHECK(bad.missing().detail.find("line 1") != std::string::npos);
}
