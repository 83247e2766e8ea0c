#include <doctest/doctest.h>

#include <sys/stat.h>

#include <string>

#include "collect/configs/command_configs.h"
#include "scratch_tree.h"

using namespace ftdiag;
using namespace ftdiag::collect;
using ftdiag::collect::testing::ScratchTree;

namespace {

const CommandConfig* find_kind(const CommandConfigs& read, const std::string& kind) {
  for (const auto& config : read.configs) {
    if (config.kind == kind) return &config;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("command configs: the DeepSpeed config and the model folder a torchrun command names, relative to its folder") {
  ScratchTree tree;
  tree.write("ds_z2.json", R"({"zero_optimization": {"stage": 2}, "bf16": {"enabled": true}})");
  tree.write("models/llama/config.json", R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "num_hidden_layers": 32})");
  const auto read = read_command_configs({"torchrun", "--nproc_per_node", "8", "train.py", "--deepspeed", "ds_z2.json",
                                          "--model_name_or_path", "models/llama", "--save_steps", "500"},
                                         tree.root(), "the job's command");
  CHECK(read.unread.empty());
  REQUIRE(read.configs.size() == 3);
  CHECK(read.configs[0].kind == "launch-command");
  CHECK(read.configs[0].file == "the job's command");
  CHECK(read.configs[0].settings.at("launcher_args.nproc_per_node") == "8");
  CHECK(read.configs[0].settings.at("args.save_steps") == "500");
  const auto* deepspeed = find_kind(read, "deepspeed");
  REQUIRE(deepspeed);
  CHECK(deepspeed->file == "ds_z2.json");
  CHECK(deepspeed->settings.at("zero_optimization.stage") == "2");
  const auto* model = find_kind(read, "model-config");
  REQUIRE(model);
  CHECK(model->file == "models/llama/config.json");
}

TEST_CASE("command configs: a LLaMA-Factory recipe given to llamafactory-cli, and the DeepSpeed config it names") {
  ScratchTree tree;
  tree.write("examples/llama3_full_sft.yaml",
             "model_name_or_path: meta-llama/Meta-Llama-3-8B-Instruct\nstage: sft\nfinetuning_type: full\n"
             "deepspeed: examples/deepspeed/ds_z2_config.json\ntemplate: llama3\nsave_steps: 500\n");
  tree.write("examples/deepspeed/ds_z2_config.json", R"({"zero_optimization": {"stage": 2}, "bf16": {"enabled": "auto"}})");
  const auto read = read_command_configs({"llamafactory-cli", "train", "examples/llama3_full_sft.yaml"}, tree.root(), "cmd");
  CHECK(read.unread.empty());
  REQUIRE(find_kind(read, "llamafactory"));
  REQUIRE(find_kind(read, "deepspeed"));
  CHECK(find_kind(read, "deepspeed")->file == "examples/deepspeed/ds_z2_config.json");
  // A hub name is no folder here: nothing more is read for it.
  CHECK(read.configs.size() == 3);
}

TEST_CASE("command configs: a file the command names that is missing, not a config, or a FIFO is said, never waited on") {
  ScratchTree tree;
  tree.write("notes.json", R"({"hello": "world"})");
  REQUIRE(::mkfifo(tree.path("fifo.json").c_str(), 0600) == 0);
  const auto read = read_command_configs({"deepspeed", "train.py", "--deepspeed", "absent.json"}, tree.root(), "cmd");
  REQUIRE(read.unread.size() == 1);
  CHECK(read.unread[0].find("absent.json: ") == 0);
  const auto other = read_command_configs({"deepspeed", "train.py", "--deepspeed", "notes.json"}, tree.root(), "cmd");
  REQUIRE(other.unread.size() == 1);
  CHECK(other.unread[0].find("not a configuration") != std::string::npos);
  const auto fifo = read_command_configs({"deepspeed", "train.py", "--deepspeed", "fifo.json"}, tree.root(), "cmd");
  REQUIRE(fifo.unread.size() == 1);
  CHECK(fifo.unread[0].find("not a regular file") != std::string::npos);
}

TEST_CASE("command configs: no launcher, nothing read; a recipe that names itself is read once") {
  ScratchTree tree;
  CHECK(read_command_configs({"make", "train"}, tree.root(), "cmd").configs.empty());
  tree.write("loop.yaml", "model_name_or_path: m\nstage: sft\nfinetuning_type: lora\ntemplate: x\ndeepspeed: loop.yaml\n");
  const auto read = read_command_configs({"llamafactory-cli", "train", "loop.yaml"}, tree.root(), "cmd");
  CHECK(read.configs.size() == 2);
}

TEST_CASE("command_line_text: words a shell would need quoted read back as given") {
  CHECK(command_line_text({"torchrun", "train.py", "--run_name", "my run", "--note", "it's"}) ==
        "torchrun train.py --run_name 'my run' --note 'it'\\''s'");
}
