#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "evidence/phase_table.h"
#include "rule_text.h"

using namespace ftdiag;
using evidence::PhaseTable;
using ftdiag::rules::testing::project_rules_dir;

namespace {

std::string phase_of(const PhaseTable& table, std::string_view line) {
  const auto phase = table.classify(line);
  return phase ? std::string(*phase) : "(none)";
}

std::string refusal(std::string_view text) {
  auto table = PhaseTable::parse(text, "phases-test.json");
  REQUIRE_FALSE(table);
  CHECK(table.missing().reason == MissingReason::unparseable);
  return table.missing().detail;
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("phase table: the project's rules/phases.json loads") {
  auto table = PhaseTable::load(project_rules_dir() / "phases.json");
  REQUIRE_MESSAGE(table.has_value(), (table ? std::string() : table.missing().detail));
  CHECK(table->phases() ==
        std::vector<std::string>{"checkpoint-save", "model-load", "data-preprocessing", "evaluation", "training"});
}

TEST_CASE("phase table: console lines of the common trainers") {
  auto loaded = PhaseTable::load(project_rules_dir() / "phases.json");
  REQUIRE(loaded);
  const PhaseTable& table = loaded.value();
  CHECK(phase_of(table, "Saving model checkpoint to /out/checkpoint-500") == "checkpoint-save");
  CHECK(phase_of(table, "[2024-05-01 10:00:00,000] [INFO] [torch_checkpoint_engine.py:21:save] "
                        "[Torch] Checkpoint global_step10 is about to be saved!") == "checkpoint-save");
  CHECK(phase_of(table, " 50%|█████     | 500/1000 [10:00<10:00,  1.20s/it]SAVING CHECKPOINT...") == "checkpoint-save");
  CHECK(phase_of(table, "Loading checkpoint shards:  14%|█▍        | 1/7 [00:03<00:18,  3.08s/it]") == "model-load");
  CHECK(phase_of(table, "Loading checkpoint shards:  14%|") == "model-load");
  CHECK(phase_of(table, "{'loss': 0.95, 'grad_norm': 1.2, 'learning_rate': 2e-05, 'epoch': 0.5}") == "training");
  CHECK(phase_of(table, " 12%|█▏        | 120/1000 [01:00<07:20,  2.00it/s]") == "training");
  CHECK(phase_of(table, "{'eval_loss': 1.1, 'eval_runtime': 3.2}") == "evaluation");
  CHECK(phase_of(table, "Map (num_proc=8):  40%|████      | 400/1000") == "data-preprocessing");
  CHECK(phase_of(table, "NCCL INFO Bootstrap : Using eth0") == "(none)");
  CHECK(phase_of(table, "") == "(none)");
}

TEST_CASE("phase table: table order wins when a line matches several phases") {
  auto table = PhaseTable::parse(R"({"phases": [
      {"phase": "first", "patterns": ["zzz", "shared word"]},
      {"phase": "second", "patterns": ["shared"]},
      {"phase": "first", "patterns": ["only-late"]}
    ]})", "order.json");
  REQUIRE(table);
  CHECK(phase_of(table.value(), "a shared word") == "first");
  CHECK(phase_of(table.value(), "shared alone") == "second");
  CHECK(phase_of(table.value(), "only-late and shared") == "second");
  CHECK(table->phases() == std::vector<std::string>{"first", "second"});
}

TEST_CASE("phase table: malformed tables are refused with a message") {
  const std::pair<const char*, const char*> cases[] = {
      {"{\"phases\": [}", "phases-test.json: line 1, column 13: not valid JSON"},
      {"[]", "expected {\"phases\": [...]}"},
      {R"({"phases": {}})", "expected {\"phases\": [...]}"},
      {R"({"phases": [{"patterns": ["x"]}]})", "/phases/0: needs \"phase\""},
      {R"({"phases": [{"phase": "p"}]})", "/phases/0: needs"},
      {R"({"phases": [{"phase": "p", "patterns": "x"}]})", "/phases/0: needs"},
      {R"({"phases": [{"phase": "p", "patterns": ["ok", 3]}]})", "/phases/0/patterns/1: not a string"},
      {R"({"phases": [{"phase": "p", "patterns": ["ok"]}, {"phase": "q", "patterns": ["(unclosed"]}]})",
       "/phases/1/patterns/0: bad regular expression"},
  };
  for (const auto& [text_binding, message] : cases) {
    const auto& text = text_binding;  // CAPTURE is a lambda: no structured bindings (clang 14)
    CAPTURE(text);
    const auto why = refusal(text);
    CHECK_MESSAGE(contains(why, message), why);
  }
}

TEST_CASE("phase table: an empty table classifies nothing") {
  auto table = PhaseTable::parse(R"({"phases": []})", "empty.json");
  REQUIRE(table);
  CHECK(phase_of(table.value(), "Saving model checkpoint") == "(none)");
}

TEST_CASE("phase table: a 1 MB line classifies in linear time") {
  auto loaded = PhaseTable::load(project_rules_dir() / "phases.json");
  REQUIRE(loaded);
  std::string line;
  unsigned x = 12345;
  while (line.size() < (1u << 20)) {
    x = x * 1103515245u + 12345u;
    line.push_back(static_cast<char>(32 + (x >> 16) % 95));
  }
  CHECK(phase_of(loaded.value(), line + " Saving model checkpoint to /out") == "checkpoint-save");
  std::string bar;
  while (bar.size() < (1u << 20)) bar += " 50%|#####     | 500/1000 [10:00<10:00,  1.20s/it]\r";
  CHECK(phase_of(loaded.value(), bar) == "training");
  CHECK(phase_of(loaded.value(), bar + "Loading checkpoint shards") == "model-load");
  CHECK(phase_of(loaded.value(), std::string(1u << 20, 'x')) == "(none)");
}

TEST_CASE("phase table: DeepSpeed, LLaMA-Factory, axolotl, TRL, ms-swift and vLLM lines") {
  auto loaded = PhaseTable::load(project_rules_dir() / "phases.json");
  REQUIRE(loaded);
  const PhaseTable& table = loaded.value();
  const std::pair<const char*, const char*> cases[] = {
      // DeepSpeed's checkpoint engines and ZeRO shards: saving, never loading.
      {"[2023-12-13 12:48:44,500] [INFO] [torch_checkpoint_engine.py:21:save] [Torch] Saving saves/Yi-34B/global_step6000/bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt...", "checkpoint-save"},
      {"[INFO] [logging.py:96:log_dist] [Rank 0] [AsyncTorch] Checkpoint global_step500 is about to be saved!", "checkpoint-save"},
      {"[INFO] [engine.py:3478:_save_zero_checkpoint] zero checkpoint saved out/global_step500/zero_pp_rank_3_mp_rank_00_optim_states.pt", "checkpoint-save"},
      {"[INFO] [torch_checkpoint_engine.py:27:load] [Torch] Loading checkpoint from out/global_step500/mp_rank_00_model_states.pt...", "model-load"},
      {"[INFO] [torch_checkpoint_engine.py:29:load] [Torch] Loaded checkpoint from out/global_step500/zero_pp_rank_0_mp_rank_00_model_states.pt.", "model-load"},
      {"[INFO|configuration_utils.py:471] 2024-05-09 17:10:17,796 >> Configuration saved in /tmp/out/checkpoint-500/config.json", "checkpoint-save"},
      {"[INFO|tokenization_utils_base.py:2503] 2024-05-09 17:10:17,950 >> tokenizer config file saved in /tmp/out/tokenizer_config.json", "checkpoint-save"},
      {"[2024-05-01 10:00:00,000] [INFO] [axolotl.train.train:190] Training Completed!!! Saving pre-trained model to ./outputs/lora-out", "checkpoint-save"},
      // Model loading in each framework's words.
      {"Loading checkpoint shards: 14% 1/7", "model-load"},
      {"Loading safetensors checkpoint shards:  50% Completed | 1/2 [00:01<00:01,  1.20s/it]", "model-load"},
      {"[INFO|2025-05-27 15:17:16] llamafactory.model.loader:143 >> trainable params: 20,971,520 || all params: 8,051,232,768 || trainable%: 0.2605", "model-load"},
      {"[2024-05-01 10:00:00,000] [INFO] [axolotl.utils.models.load_model:687] [PID:123] [RANK:0] converting modules to torch.bfloat16", "model-load"},
      {"[INFO:swift] Loading the model using model_dir: /models/Qwen2-7B-Instruct", "model-load"},
      {"[2022-05-15 00:12:51,292] [INFO] [engine.py:2754:_get_all_zero_checkpoint_state_dicts] successfully read 2 ZeRO state_dicts for rank 0", "model-load"},
      // Data preparation.
      {"Unsloth: Standardizing formats (num_proc=32):   0%|          | 0/100000 [00:00<?, ? examples/s]", "data-preprocessing"},
      {"Applying chat template to train dataset:  40%|####      | 400/1000 [00:01<00:02, 300.00 examples/s]", "data-preprocessing"},
      {"Tokenizing train dataset (num_proc=8):  12%|#2        | 120/1000", "data-preprocessing"},
      {"[INFO|2025-04-30 22:50:01] llamafactory.data.loader:143 >> Loading dataset alpaca_en_demo.json...", "data-preprocessing"},
      // Training and evaluation bars and logs.
      {"Train:  12%|#2        | 120/1000 [01:00<07:20,  2.00it/s]", "training"},
      {"Val: 100%|##########| 10/10 [00:05<00:00,  2.00it/s]", "evaluation"},
      {"[INFO|2025-04-30 22:55:57] llamafactory.train.callbacks:143 >> {'loss': 1.4229, 'learning_rate': 4.9978e-05, 'epoch': 0.17}", "training"},
      {"{'loss': 1.2, 'acc': 0.7, 'grad_norm': 3.1, 'learning_rate': 1e-05, 'memory(GiB)': 20.1, 'global_step/max_steps': '10/100'}", "training"},
      // Near-misses: a save_steps setting, a tqdm bar of no known phase, a dataset count.
      {"save_steps=500, save_total_limit=2", "(none)"},
      // A bar's rate in iterations is a training bar unless its words say
      // loading or evaluating (earlier phases win); a bar in bytes or
      // examples is no phase.
      {"[00:12<01:40, 3.2it/s]", "training"},
      {"Downloading model.safetensors: 100%|##########| 1.2G/1.2G [00:12<00:00, 98.1MB/s]", "(none)"},
      {"100%|##########| 1000/1000 [00:01<00:00, 900.50 examples/s]", "(none)"},
      {"Resuming from global_step500 with save_steps=500", "(none)"},
  };
  for (const auto& [line_binding, phase_binding] : cases) {
    const std::string line = line_binding;  // CAPTURE is a lambda: no structured bindings (clang 14)
    const std::string phase = phase_binding;
    CAPTURE(line);
    CHECK(phase_of(table, line) == phase);
  }
}
