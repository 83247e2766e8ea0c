#include <doctest/doctest.h>

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <re2/re2.h>

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

std::string phase_table_refusal(std::string_view text) {
  auto table = PhaseTable::parse(text, "phases-test.json");
  REQUIRE_FALSE(table);
  CHECK(table.missing().reason == MissingReason::unparseable);
  return table.missing().detail;
}

bool phase_text_contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

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
    const auto why = phase_table_refusal(text);
    CHECK_MESSAGE(phase_text_contains(why, message), why);
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

// The wordings each framework prints, built from its source's format strings
// with plausible values (docs/phases.md says where each is printed), and lines
// of the same framework that must mark no phase or another one.
namespace {

struct PhaseCase {
  const char* phase;  // "(none)" for a line that marks no phase
  const char* line;
};

const PhaseCase kTransformers[] = {
    {"checkpoint-save", "[INFO|trainer.py:3984] 2025-05-02 10:00:00,123 >> Saving model checkpoint to saves/llama3-8b/lora/sft/checkpoint-500"},
    {"checkpoint-save", "[INFO|trainer.py:4076] 2025-05-02 10:00:09,001 >> Deleting older checkpoint [saves/llama3-8b/lora/sft/checkpoint-400] due to args.save_total_limit"},
    {"checkpoint-save", "[WARNING|trainer.py:3917] 2025-05-02 10:00:00,200 >>  stage3_gather_16bit_weights_on_model_save=false. Saving the full checkpoint instead, use zero_to_fp32.py to recover weights"},
    {"checkpoint-save", "[INFO|trainer.py:3994] 2025-05-02 10:00:00,300 >> Trainer.model is not a `PreTrainedModel`, only saving its state dict."},
    {"checkpoint-save", "[INFO|trainer.py:4010] 2025-05-02 10:00:00,400 >> Saving Trainer.data_collator.tokenizer by default as Trainer.processing_class is `None`"},
    {"checkpoint-save", "[INFO|modeling_utils.py:3720] 2025-05-02 10:00:30,000 >> The model is bigger than the maximum size per checkpoint (5GB) and is going to be split in 4 checkpoint shards. You can find where each parameters has been saved in the index located at /out/model.safetensors.index.json."},
    {"checkpoint-save", "[INFO|processing_utils.py:700] 2025-05-02 10:00:31,000 >> processor saved in /out/checkpoint-500/processor_config.json"},
    {"checkpoint-save", "[INFO|image_processing_base.py:253] 2025-05-02 10:00:31,100 >> Image processor saved in /out/checkpoint-500/preprocessor_config.json"},
    {"model-load", "[INFO|trainer.py:2810] 2025-05-02 12:00:00,000 >> Loading best model from /out/checkpoint-400 (score: 0.8123)."},
    {"model-load", "[WARNING|trainer.py:2890] 2025-05-02 12:00:00,000 >> Could not locate the best model at /out/checkpoint-400/pytorch_model.bin, if you are running a distributed training on multiple nodes, you should activate `--save_on_each_node`."},
    {"model-load", "[INFO|trainer.py:2656] 2025-05-02 09:00:00,000 >> Loading model from /out/checkpoint-500."},
    {"model-load", "[WARNING|trainer.py:2660] 2025-05-02 09:00:00,000 >> You are resuming training from a checkpoint trained with 4.40.0 of Transformers but your current version is 4.41.2. This is not recommended and could yield to errors or unwanted behaviors."},
    {"model-load", "[WARNING|trainer.py:2890] 2025-05-02 09:00:01,000 >> There were missing keys in the checkpoint model loaded: ['lm_head.weight']."},
    {"model-load", "[INFO|trainer.py:3100] 2025-05-02 09:01:00,000 >> Didn't find an RNG file for process 3, if you are resuming a training that wasn't launched in a distributed fashion, reproducibility is not guaranteed."},
    {"model-load", "ValueError: Can't find a valid checkpoint at /out/checkpoint-500"},
    {"model-load", "[INFO|deepspeed.py:420] 2025-05-02 09:00:00,000 >> Attempting to resume from /out/checkpoint-500"},
    {"model-load", "[INFO|configuration_utils.py:733] 2025-05-02 08:59:00,000 >> loading configuration file /models/Llama-3-8B/config.json"},
    {"model-load", "[INFO|tokenization_utils_base.py:2287] 2025-05-02 08:59:00,100 >> loading file tokenizer.json from cache at /root/.cache/huggingface/hub/models--meta-llama--Meta-Llama-3-8B/snapshots/abc/tokenizer.json"},
    {"model-load", "[INFO|modeling_utils.py:4574] 2025-05-02 08:59:30,000 >> All model checkpoint weights were used when initializing LlamaForCausalLM."},
    {"model-load", "[WARNING|modeling_utils.py:4584] 2025-05-02 08:59:30,000 >> Some weights of LlamaForSequenceClassification were not initialized from the model checkpoint at /models/Llama-3-8B and are newly initialized: ['score.weight']"},
    {"model-load", "[INFO|modeling_utils.py:1622] 2025-05-02 08:59:01,000 >> Instantiating LlamaForCausalLM model under default dtype torch.bfloat16."},
    {"evaluation", "[INFO|trainer.py:4307] 2025-05-02 11:00:00,000 >> ***** Running Prediction *****"},
    {"evaluation", "***** eval metrics *****"},
    {"training", "[INFO|trainer.py:2330] 2025-05-02 09:02:00,000 >>   Continuing training from checkpoint, will skip to saved global_step"},
    {"training", "[INFO|trainer.py:2332] 2025-05-02 09:02:00,000 >>   Will skip the first 1 epochs then the first 120 batches in the first epoch."},
    {"training", "[INFO|trainer.py:2610] 2025-05-02 11:59:00,000 >> Training completed. Do not forget to share your model on huggingface.co/models =)"},
    {"training", "***** train metrics *****"},
    // Near misses: arguments that name saving and loading, a progress bar in bytes.
    {"(none)", "load_best_model_at_end=True, save_strategy=steps, save_total_limit=2"},
    {"(none)", "model.safetensors: 100%|##########| 4.98G/4.98G [00:41<00:00, 121MB/s]"},
};

const PhaseCase kAccelerate[] = {
    {"checkpoint-save", "05/02/2025 10:00:00 - INFO - accelerate.accelerator - Saving current state to /out/step_1000"},
    {"checkpoint-save", "05/02/2025 10:00:00 - INFO - accelerate.accelerator - Saving FSDP model"},
    {"checkpoint-save", "05/02/2025 10:00:30 - INFO - accelerate.accelerator - FSDP Model saved to output dir /out/step_1000"},
    {"checkpoint-save", "05/02/2025 10:00:00 - INFO - accelerate.accelerator - Saving DeepSpeed Model and Optimizer"},
    {"checkpoint-save", "05/02/2025 10:00:40 - INFO - accelerate.accelerator - DeepSpeed Model and Optimizer saved to output dir /out/step_1000/pytorch_model"},
    {"checkpoint-save", "05/02/2025 10:00:00 - INFO - accelerate.utils.fsdp_utils - Saving model to /out/step_1000/pytorch_model_fsdp_0"},
    {"checkpoint-save", "05/02/2025 10:00:20 - INFO - accelerate.utils.fsdp_utils - Model saved to /out/step_1000/pytorch_model_fsdp_0"},
    {"checkpoint-save", "05/02/2025 10:00:21 - INFO - accelerate.utils.fsdp_utils - Saving Optimizer state to /out/step_1000/optimizer_0"},
    {"checkpoint-save", "05/02/2025 10:00:50 - INFO - accelerate.utils.fsdp_utils - Optimizer state saved in /out/step_1000/optimizer_0"},
    {"checkpoint-save", "05/02/2025 10:00:51 - INFO - accelerate.checkpointing - Scheduler state saved in /out/step_1000/scheduler.bin"},
    {"checkpoint-save", "05/02/2025 10:00:51 - INFO - accelerate.checkpointing - Sampler state for dataloader 0 saved in /out/step_1000/sampler.bin"},
    {"checkpoint-save", "05/02/2025 10:00:51 - INFO - accelerate.checkpointing - Random states saved in /out/step_1000/random_states_0.pkl"},
    {"checkpoint-save", "05/02/2025 10:00:00 - INFO - accelerate.accelerator - Deleting 1 checkpoints to make room for new checkpoint."},
    {"checkpoint-save", "05/02/2025 10:00:52 - INFO - accelerate.checkpointing - Saving the state of EMA to /out/step_1000/custom_checkpoint_0.pkl"},
    {"checkpoint-save", "05/02/2025 12:00:00 - INFO - accelerate.utils.fsdp_utils - Merging FSDP weights from /out/pytorch_model_fsdp_0"},
    {"model-load", "05/02/2025 09:00:00 - INFO - accelerate.accelerator - Loading states from /out/step_1000"},
    {"model-load", "05/02/2025 09:00:00 - INFO - accelerate.accelerator - Loading FSDP model"},
    {"model-load", "05/02/2025 09:00:20 - INFO - accelerate.accelerator - FSDP Model loaded from input dir /out/step_1000"},
    {"model-load", "05/02/2025 09:00:00 - INFO - accelerate.accelerator - Loading DeepSpeed Model and Optimizer"},
    {"model-load", "05/02/2025 09:00:00 - INFO - accelerate.utils.fsdp_utils - Loading model from /out/step_1000/pytorch_model_fsdp_0"},
    {"model-load", "05/02/2025 09:00:10 - INFO - accelerate.utils.fsdp_utils - Model loaded from /out/step_1000/pytorch_model_fsdp_0"},
    {"model-load", "05/02/2025 09:00:11 - INFO - accelerate.utils.fsdp_utils - Loading Optimizer state from /out/step_1000/optimizer_0"},
    {"model-load", "05/02/2025 09:00:31 - INFO - accelerate.utils.fsdp_utils - Optimizer loaded from /out/step_1000/optimizer_0"},
    {"model-load", "05/02/2025 09:00:32 - INFO - accelerate.checkpointing - All model weights loaded successfully"},
    {"model-load", "05/02/2025 09:00:32 - INFO - accelerate.checkpointing - All random states loaded successfully"},
    {"model-load", "05/02/2025 09:00:32 - INFO - accelerate.accelerator - Loading in 1 custom states"},
    {"(none)", "05/02/2025 09:00:00 - INFO - accelerate.accelerator - Setting ds_accelerator to cuda (auto detect)"},
};

const PhaseCase kLightning[] = {
    {"checkpoint-save", "Epoch 3, global step 4000: 'val_loss' reached 0.41235 (best 0.41235), saving model to '/out/checkpoints/epoch=3-step=4000.ckpt' as top 1"},
    {"checkpoint-save", "Epoch 00003: val_loss reached 0.41235 (best 0.41235), saving model to /out/_ckpt_epoch_3.ckpt as top 1"},
    {"checkpoint-save", "Saving latest checkpoint..."},
    {"checkpoint-save", "An KeyboardInterrupt was raised with message: , saved checkpoint to /out/checkpoints/exception.ckpt"},
    {"model-load", "Restoring states from the checkpoint path at /out/checkpoints/last.ckpt"},
    {"model-load", "Restoring states from the checkpoint file at /out/checkpoints/last.ckpt"},
    {"model-load", "Restored states from the checkpoint file at /out/checkpoints/last.ckpt"},
    {"model-load", "Restored all states from the checkpoint at /out/checkpoints/last.ckpt"},
    {"model-load", "Restored all states from the checkpoint file at /out/checkpoints/last.ckpt"},
    {"model-load", "Loaded model weights from the checkpoint at /out/checkpoints/best.ckpt"},
    {"model-load", "Loaded model weights from checkpoint at /out/checkpoints/best.ckpt"},
    {"model-load", "restored hpc model from: /out/hpc_ckpt_3.ckpt"},
    {"evaluation", "Validation DataLoader 0:  40%|████      | 4/10 [00:01<00:02,  2.91it/s]"},
    {"evaluation", "Sanity Checking DataLoader 0:   0%|          | 0/2 [00:00<?, ?it/s]"},
    {"evaluation", "Validation: |          | 0/? [00:00<?, ?it/s]"},
    {"evaluation", "Validation sanity check:  50%|█████     | 1/2 [00:00<00:00,  1.20it/s]"},
    {"evaluation", "Testing DataLoader 0: 100%|██████████| 10/10 [00:02<00:00,  4.20it/s]"},
    {"training", "Epoch 3:  45%|████▌     | 450/1000 [02:10<02:39,  3.45it/s, v_num=0, train_loss=0.512]"},
    // The monitored metric did not improve: nothing is saved.
    {"(none)", "Epoch 3, global step 4000: 'val_loss' was not in top 1"},
    {"(none)", "`Trainer.fit` stopped: `max_epochs=3` reached."},
};

const PhaseCase kDeepSpeed[] = {
    {"checkpoint-save", "[2025-05-02 10:00:00,000] [INFO] [logging.py:128:log_dist] [Rank 0] [Torch] Checkpoint global_step1000 is about to be saved!"},
    {"checkpoint-save", "[2022-09-01 10:00:00,000] [INFO] [logging.py:68:log_dist] [Rank 0] [Torch] Checkpoint global_step1000 is begin to save!"},
    {"checkpoint-save", "[2023-06-01 10:00:30,000] [INFO] [torch_checkpoint_engine.py:33:commit] [Torch] Checkpoint global_step1000 is ready now!"},
    {"checkpoint-save", "[2023-06-01 10:00:00,000] [INFO] [logging.py:96:log_dist] [Rank 0] [Nebula] Start Checkpoint for tag:global_step1000"},
    {"checkpoint-save", "[2023-06-01 10:01:00,000] [INFO] [nebula_checkpoint_engine.py:103:commit] [Nebula] all files for global_step1000 are saved in tier1. It is ready to start persisting"},
    {"checkpoint-save", "DecoupledCheckpointEngine self.global_rank=0 created checkpoint of 152.31 GB"},
    {"checkpoint-save", "[2025-05-02 10:00:00,000] [INFO] [engine.py:4824:save_checkpoint] Copying NVMe offload files from /local_nvme/zero_stage_3/rank0 to /out/global_step1000/offloaded_tensors/rank0, 812.31 GB free on target filesystem..."},
    {"checkpoint-save", "[2025-05-02 10:00:00,000] [INFO] [engine.py:5599:save_16bit_model] Did not save the model /out/pytorch_model.bin because stage3_gather_16bit_weights_on_model_save is False"},
    {"checkpoint-save", "[2025-05-02 10:00:00,000] [INFO] [engine.py:5611:save_16bit_model] Saving model weights to /out/pytorch_model.bin, tag: global_step1000"},
    {"checkpoint-save", "Processing zero checkpoint './global_step1000'"},
    {"checkpoint-save", "Detected checkpoint of type zero stage 3, world_size: 8"},
    {"checkpoint-save", "Reconstructed fp32 state dict with 291 params 8030261248 elements"},
    {"checkpoint-save", "Parsing checkpoint created by deepspeed==0.14.4"},
    {"checkpoint-save", "Saving checkpoint shards: 100%|██████████| 4/4 [01:10<00:00, 17.60s/it]"},
    {"model-load", "[2025-05-02 09:00:00,000] [INFO] [logging.py:128:log_dist] [Rank 0] [Torch] Begin Load checkpoint from /out/global_step1000/mp_rank_00_model_states.pt..."},
    {"model-load", "[2025-05-02 09:00:10,000] [INFO] [logging.py:128:log_dist] [Rank 0] [Torch] End Load checkpoint from /out/global_step1000/mp_rank_00_model_states.pt..."},
    {"model-load", "[2023-06-01 09:00:00,000] [INFO] [nebula_checkpoint_engine.py:66:load] [Nebula] Loading /out/global_step1000/mp_rank_00_model_states.pt under tag global_step1000 from nebula path /nebula..."},
    {"model-load", "[2023-06-01 09:00:00,000] [INFO] [nebula_checkpoint_engine.py:60:load] [Nebula] Disable nebula load. Loading checkpoint from /out/global_step1000/mp_rank_00_model_states.pt ..."},
    {"model-load", "[2025-05-02 09:00:00,000] [INFO] [engine.py:4648:_load_zero_checkpoint] loaded universal zero checkpoints from /out/global_step1000 for rank 0"},
    {"model-load", "[2025-05-02 09:00:00,000] [WARNING] [engine.py:4727:_get_all_zero_checkpoints] Loading bf16 zero checkpoints into fp16 training engine"},
    {"model-load", "[2025-05-02 09:00:00,000] [WARNING] [engine.py:4313:_load_checkpoint] Unable to find latest file at /out/latest, if trying to load latest checkpoint please ensure this file exists or pass an explicit checkpoint tag when loading a checkpoint."},
    {"model-load", "[2025-05-02 09:00:00,000] [INFO] [engine.py:4352:load_checkpoint] Copying NVMe offload checkpoint from /out/global_step1000/offloaded_tensors/rank0 to /local_nvme/zero_stage_3/rank0, 812.31 GB free on target filesystem..."},
    // load_state_dict_from_zero_checkpoint logs under zero_to_fp32.py's name: a load, not the conversion script.
    {"model-load", "[2025-05-02 12:00:00,000] [INFO] [zero_to_fp32.py:742:load_state_dict_from_zero_checkpoint] Extracting fp32 weights"},
    {"model-load", "[2025-05-02 12:01:00,000] [INFO] [zero_to_fp32.py:745:load_state_dict_from_zero_checkpoint] Overwriting model with fp32 weights"},
    {"(none)", "[2025-05-02 09:00:00,000] [INFO] [config.py:1000:print] checkpoint_config ............ {'tag_validation': 'WARN', 'load_universal': False}"},
};

const PhaseCase kTorch[] = {
    {"checkpoint-save", "RuntimeError: [enforce fail at inline_container.cc:595] . PytorchStreamWriter failed writing file data/37: file write failed"},
    {"checkpoint-save", "RuntimeError: [enforce fail at inline_container.cc:664] . unexpected pos 56833600 vs 56833492"},
    {"checkpoint-save", "/usr/lib/python3/dist-packages/torch/distributed/checkpoint/state_dict_saver.py:144: UserWarning: torch.distributed is disabled, unavailable or uninitialized, assuming the intent is to save in a single process."},
    {"checkpoint-save", "UserWarning: 'save_state_dict' is deprecated and will be removed in future versions.Please use 'save' instead."},
    {"model-load", "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory"},
    {"model-load", "_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two options"},
    {"model-load", "UserWarning: torch.distributed is unavailable or uninitialized, assuming the intent is to load in a single process."},
    {"model-load", "UserWarning: 'load_state_dict' is deprecated and will be removed in future versions. Please use 'load' instead."},
};

const PhaseCase kMegatron[] = {
    {"checkpoint-save", "[2025-05-02 10:00:00.123456] saving checkpoint at iteration    1000 to /ckpt in torch_dist format"},
    {"checkpoint-save", "  [2025-05-02 10:01:00.123456] successfully saved checkpoint from iteration    1000 to /ckpt [ t 1/8, p 1/4 ]"},
    {"checkpoint-save", "  successfully saved checkpoint at iteration    1000 to /ckpt"},
    {"checkpoint-save", "  [2025-05-02 10:00:01.000000] scheduled an async checkpoint save at iteration    1000 to /ckpt"},
    {"checkpoint-save", "WARNING: Starting a checkpoint save before previous has finished. Consider increasing the checkpoint interval."},
    {"checkpoint-save", "saving dataloader checkpoint at iteration 1000 to /ckpt/iter_0001000/dataloader"},
    {"checkpoint-save", "Storing distributed optimizer sharded state of type fully_sharded_model_space"},
    {"checkpoint-save", "  successfully deleted checkpoint from iteration     900 at /nonpersistent"},
    {"checkpoint-save", "Overwriting old incomplete / corrupted checkpoint..."},
    {"model-load", " loading distributed checkpoint from /ckpt at iteration 1000"},
    {"model-load", " loading release checkpoint from /ckpt"},
    {"model-load", "  successfully loaded checkpoint from /ckpt [ t 1/8, p 1/4 ] at iteration 1000"},
    {"model-load", "global rank 3 is loading checkpoint /ckpt/iter_0001000/mp_rank_00/model_optim_rng.pt"},
    {"model-load", "WARNING: could not find the metadata file /ckpt/latest_checkpointed_iteration.txt"},
    {"model-load", "    will not load any checkpoints and will start from random"},
    {"model-load", "Unable to load optimizer from checkpoint /ckpt/iter_0001000. Specify --no-load-optim or --finetune to prevent attempting to load the optimizer state, exiting ..."},
    {"model-load", " checkpoint version 3.0"},
    {"evaluation", " validation loss at iteration 1000 | lm loss value: 2.345678E+00 | lm loss PPL: 1.043975E+01 |"},
    {"evaluation", " validation (val) loss at iteration 1000 on validation set | lm loss value: 2.345678E+00 |"},
    {"evaluation", "Evaluating iter 3/10"},
    {"evaluation", "Evaluating on 1280 samples"},
    {"training", " [2025-05-02 10:02:03] iteration      100/  500000 | consumed samples:        12800 | elapsed time per iteration (ms): 1234.5 | learning rate: 1.500000E-04 | global batch size:   128 | lm loss: 6.123456E+00 | loss scale: 1.0 | grad norm: 1.234 | number of skipped iterations:   0 | number of nan iterations:   0 |"},
    {"training", "[before the start of training step] datetime: 2025-05-02 10:00:00"},
    {"training", "training ..."},
    {"data-preprocessing", "> building train, validation, and test datasets ..."},
    {"(none)", "  save ............................................ /ckpt"},
};

const PhaseCase kNeMo[] = {
    {"checkpoint-save", "[NeMo I 2025-05-02 10:00:30 dist_ckpt_io:310] Global Checkpoint Save : Rank: 0 : Iteration: 1000 : Start time: 1746180000.123s : Save duration: 30.456s"},
    {"checkpoint-save", "[NeMo I 2025-05-02 10:00:31 dist_ckpt_io:312] Successfully saved checkpoint from iteration    1000 to /nemo/checkpoints/step=1000.ckpt"},
    {"checkpoint-save", "[NeMo I 2025-05-02 10:00:00 nemo_model_checkpoint:632] Scheduled async checkpoint save for /nemo/checkpoints/step=1000.ckpt"},
    {"checkpoint-save", "[NeMo I 2025-05-02 10:02:00 nemo_model_checkpoint:657] Async checkpoint save for step 1000 (/nemo/checkpoints/step=1000.ckpt) finalized successfully."},
    {"checkpoint-save", "[NeMo I 2025-05-02 10:00:00 nemo_model_checkpoint:595] Saving EMA weights to separate checkpoint /nemo/checkpoints/step=1000-EMA.ckpt"},
    {"checkpoint-save", "[NeMo I 2025-05-02 10:05:00 nemo_model_checkpoint:249] New best .nemo model saved to: /nemo/model.nemo"},
    {"checkpoint-save", "[NeMo I 2025-05-02 10:00:00 dist_ckpt_io:473] Using TorchDistSaveShardedStrategy dist-ckpt save strategy."},
    {"checkpoint-save", "[NeMo I 2025-05-02 10:00:00 preemption:94] Received SIGTERM, saving checkpoint and exiting"},
    {"model-load", "[NeMo I 2025-05-02 09:00:00 exp_manager:1051] Resuming training from checkpoint: /nemo/checkpoints/last.ckpt"},
    {"model-load", "[NeMo I 2023-05-02 09:00:00 exp_manager:599] Resuming from /nemo/checkpoints/megatron_gpt--val_loss=2.30-step=1000-last.ckpt"},
    {"model-load", "[NeMo I 2025-05-02 09:00:00 exp_manager:1330] Resuming from checkpoint /nemo/checkpoints/step=1000.ckpt, rank 0"},
    {"model-load", "[NeMo I 2025-05-02 09:00:00 save_restore_connector:282] Model MegatronGPTModel was successfully restored from /models/base.nemo."},
    {"model-load", "[NeMo I 2025-05-02 09:00:00 modelPT:1357] Model checkpoint restored from nemo file with path : `/models/base.nemo`"},
    {"model-load", "[NeMo I 2025-05-02 09:00:00 megatron_strategy:1196] Restoring model weights from RestoreConfig(path='/models/llama3')"},
    {"model-load", "[NeMo I 2025-05-02 09:00:30 dist_ckpt_io:396] Global Checkpoint Load : Rank : 0 : Start time : 1746176400.000s : Time spent in load_checkpoint: 30.123s"},
    {"model-load", "[NeMo I 2025-05-02 09:00:00 dist_ckpt_io:364] Using TorchDistLoadShardedStrategy dist-ckpt load strategy."},
    {"(none)", "[NeMo I 2025-05-02 09:00:00 exp_manager:400] Experiments will be logged at /nemo/results"},
};

const PhaseCase kLlamaFactory[] = {
    {"checkpoint-save", "[INFO|2025-04-30 22:55:57] llamafactory.train.callbacks:143 >> Value head model saved at: saves/rm/checkpoint-500"},
    {"checkpoint-save", "[INFO|2025-04-30 22:55:57] llamafactory.train.callbacks:143 >> Converted PiSSA adapter will be saved at: saves/pissa_converted."},
    {"checkpoint-save", "[INFO|2025-04-30 23:00:00] llamafactory.train.tuner:143 >> Ollama modelfile saved in saves/export/Modelfile"},
    {"checkpoint-save", "[INFO|2026-04-30 23:00:00] llamafactory.v1.core.utils.checkpoint:143 >> Checkpoint saved to saves/v1/checkpoint-500"},
    {"model-load", "[INFO|2025-04-30 22:00:00] llamafactory.train.trainer_utils:143 >> Loaded adapter weights of reward model from saves/rm"},
    {"model-load", "[INFO|2026-04-30 22:00:00] llamafactory.v1.core.utils.checkpoint:143 >> Resumed from checkpoint: step=500, epoch=1"},
    {"data-preprocessing", "Converting format of dataset (num_proc=16): 100%|██████████| 1000/1000 [00:00<00:00, 5000.00 examples/s]"},
    {"data-preprocessing", "Converting format of dataset: 100%|██████████| 1000/1000 [00:00<00:00, 5000.00 examples/s]"},
    {"evaluation", "[INFO|2025-04-30 23:10:00] llamafactory.train.sft.trainer:143 >> Saving prediction results to saves/predict/generated_predictions.jsonl"},
    {"(none)", "[INFO|2025-04-30 23:10:00] llamafactory.hparams.parser:143 >> Process rank: 0, world size: 8, device: cuda:0, distributed training: True, compute dtype: torch.bfloat16"},
};

const PhaseCase kAxolotl[] = {
    {"checkpoint-save", "[2025-05-02 12:00:00,000] [INFO] [axolotl.train.save_trained_model:267] [PID:123] Training completed! Saving trained model to ./outputs/out."},
    {"checkpoint-save", "[2025-05-02 12:05:00,000] [INFO] [axolotl.train.save_trained_model:412] [PID:123] Model successfully saved to ./outputs/out"},
    {"checkpoint-save", "[2025-05-02 12:00:00,000] [INFO] [axolotl.cli.merge_lora.do_merge_lora:44] [PID:123] Running merge of LoRA with base model..."},
    {"checkpoint-save", "[2025-05-02 12:00:00,000] [INFO] [axolotl.cli.quantize.do_quantize:105] [PID:123] Saving quantized model to: ./outputs/out/quantized."},
    {"checkpoint-save", "[2025-05-02 12:00:00,000] [INFO] [axolotl.cli.quantize.do_quantize:128] [PID:123] Quantized model saved to: ./outputs/out/quantized."},
    {"model-load", "[2025-05-02 09:00:00,000] [INFO] [axolotl.loaders.model._load_model:250] [PID:123] [RANK:0] converting modules to torch.bfloat16"},
    {"model-load", "[2024-05-02 09:00:00,000] [INFO] [axolotl.utils.models.load_tokenizer:290] [PID:123] [RANK:0] EOS: 2 / </s>"},
    {"model-load", "[2025-05-02 09:00:00,000] [INFO] [axolotl.cli.utils.load.load_model_and_tokenizer:67] [PID:123] loading tokenizer... /models/llama"},
    {"data-preprocessing", "[2025-05-02 08:50:00,000] [INFO] [axolotl.utils.data.shared.load_preprocessed_dataset:539] [PID:123] Unable to find prepared dataset in last_run_prepared/abc123"},
    {"data-preprocessing", "Tokenizing Prompts (num_proc=64):  14%|█▍        | 14000/100000 [00:05<00:30, 2800.00 examples/s]"},
    {"data-preprocessing", "Dropping Long Sequences (num_proc=64): 100%|██████████| 100000/100000 [00:02<00:00, 40000.00 examples/s]"},
    {"data-preprocessing", "[2024-05-02 08:50:00,000] [INFO] [axolotl.load_tokenized_prepared_datasets:427] [PID:123] [RANK:0] Saving merged prepared dataset to disk... last_run_prepared/abc123"},
    {"evaluation", "[2025-05-02 10:00:00,000] [INFO] [axolotl.core.trainers.base.evaluate:464] [PID:123] Running evaluation step..."},
    {"training", "[2025-05-02 09:10:00,000] [INFO] [axolotl.train.execute_training:226] [PID:123] Starting trainer..."},
};

const PhaseCase kTrl[] = {
    {"checkpoint-save", "Saved BEMA model to /out/bema"},
    {"data-preprocessing", "Converting train dataset to ChatML: 100%|██████████| 1000/1000 [00:00<00:00, 12000.00 examples/s]"},
    {"data-preprocessing", "Applying formatting function to train dataset: 100%|██████████| 1000/1000 [00:00<00:00, 9000.00 examples/s]"},
    {"data-preprocessing", "Dropping fully truncated examples from train dataset: 100%|██████████| 1000/1000"},
    {"data-preprocessing", "Extracting KL train dataset: 100%|██████████| 1000/1000"},
    {"data-preprocessing", "Filtering train >2048 tokens (num_proc=8): 100%|██████████| 1000/1000"},
    // Precomputing the reference model's log-probabilities is dataset preparation, though its bar counts in s/it.
    {"data-preprocessing", "Computing reference log probs for train dataset: 40%|████      | 40/100 [00:40<01:00,  1.00s/it]"},
    {"data-preprocessing", "Train dataset reference log probs: 40%|████      | 40/100 [00:40<01:00,  1.00s/it]"},
    {"training", "{'loss': 0.6931, 'grad_norm': 3.2, 'learning_rate': 5e-07, 'rewards/chosen': 0.0, 'epoch': 0.01}"},
};

const PhaseCase kSwift[] = {
    {"checkpoint-save", "[INFO:swift] Successfully saved Megatron model weights in `/out/v0-20250502/checkpoint-1000`."},
    {"checkpoint-save", "[INFO:swift] Successfully saved `safetensors` model weights in `/out/v0-20250502/checkpoint-1000`."},
    {"checkpoint-save", "[INFO:swift] Converting weights and saving the model..."},
    {"checkpoint-save", "[INFO:swift] Merge LoRA..."},
    {"checkpoint-save", "[INFO:swift] Successfully merged LoRA and saved in /out/checkpoint-1000-merged."},
    {"checkpoint-save", "[INFO:swift] Skip saving the checkpoint of step 1000 because the latest checkpoint is not finished."},
    {"checkpoint-save", "Exporting: : 100%|██████████| 291/291 [00:30<00:00,  9.70it/s]"},
    {"model-load", "[INFO:swift] Successfully loaded Megatron model weights from: /models/qwen-mcore"},
    {"model-load", "[WARNING:swift] Failed to call deepspeed_load_checkpoint function. If `--resume_only_model true` is set, this warning can be ignored. boom."},
    {"model-load", "Loading: :  40%|████      | 120/300 [00:10<00:15, 12.00it/s]"},
    {"evaluation", "Evaluate: :  50%|█████     | 5/10 [00:05<00:05,  1.00s/it]"},
    {"training", "Train: :  12%|█▏        | 120/1000 [01:00<07:20,  2.00it/s]"},
    {"training", "Skip Batches: :  40%|████      | 40/100 [00:01<00:01, 40.00it/s]"},
};

const PhaseCase kTorchtune[] = {
    {"checkpoint-save", "INFO:torchtune.utils._logging:Saving final epoch checkpoint."},
    {"checkpoint-save", "INFO:torchtune.utils._logging:Model checkpoint of size 4.98 GiB saved to /out/epoch_0/model-00001-of-00004.safetensors"},
    {"checkpoint-save", "INFO:torchtune.utils._logging:Adapter checkpoint of size 0.04 GB saved to /out/adapter_0.pt"},
    {"checkpoint-save", "INFO:torchtune.utils._logging:The full model checkpoint, including all weights and configurations, has been saved successfully.You can now use this checkpoint for further training or inference."},
    {"checkpoint-save", "INFO:torchtune.utils._logging:Rank 0: previous checkpoint has not finished. Checkpointing frequency is too high. Waiting..."},
    {"checkpoint-save", "INFO:torchtune.utils._logging:Saving asynchronous checkpoint took 12.30 secs"},
    {"checkpoint-save", "INFO:torchtune.utils._logging:Starting checkpoint save..."},
    {"model-load", "INFO:torchtune.utils._logging:Loading checkpoint from /out/step_500"},
    {"model-load", "INFO:torchtune.utils._logging:DistributedCheckpointer loaded the checkpoint in 12.34 seconds."},
    {"model-load", "INFO:torchtune.utils._logging:Instantiating model and loading checkpoint took 45.67 secs"},
    {"model-load", "INFO:torchtune.utils._logging:Model is initialized with precision torch.bfloat16."},
    {"data-preprocessing", "Packing dataset: 100%|██████████| 52002/52002 [00:12<00:00, 4200.00it/s]"},
    {"evaluation", "INFO:torchtune.utils._logging:Validation loss: 1.2345"},
    {"training", "1|25|Loss: 1.2345678:  12%|█▏        | 25/200 [00:40<04:40,  1.60s/it]"},
};

const PhaseCase kLatentDiffusion[] = {
    {"model-load", "DiffusionWrapper has 865.91 M params."},
    {"model-load", "LatentDiffusion: Running in eps-prediction mode"},
    {"model-load", "making attention of type 'vanilla-xformers' with 512 in_channels"},
    {"model-load", "Working with z of shape (1, 4, 32, 32) = 4096 dimensions."},
    {"checkpoint-save", "Summoning checkpoint."},
    {"(none)", "The model has 7.2 M params. and trains"},
};

const PhaseCase kUnsloth[] = {
    {"checkpoint-save", "Unsloth: Merging 4bit and LoRA weights to 16bit..."},
    {"checkpoint-save", "Unsloth: Will use up to 34.5 out of 62.8 RAM for saving."},
    {"checkpoint-save", "Unsloth: Saving tokenizer... Done."},
    {"checkpoint-save", "Unsloth: Saving LoRA adapters. Please wait..."},
    {"checkpoint-save", "Unsloth: Converting model to GGUF format..."},
    {"model-load", "==((====))==  Unsloth 2025.3.19: Fast Qwen2 patching. Transformers: 4.50.0."},
    {"model-load", "==((====))==  Unsloth: Fast Llama patching release 2024.1"},
    {"training", "==((====))==  Unsloth - 2x faster free finetuning | Num GPUs used = 1"},
    {"(none)", "Unsloth: Offloading input_embeddings to disk to save VRAM"},
};

const PhaseCase kVerl[] = {
    {"checkpoint-save", "local_global_step_folder: checkpoints/verl/gsm8k/global_step_100"},
    {"checkpoint-save", "[Rank 0] Saved model to /ckpt/global_step_100/actor/model_world_size_8_rank_0.pt"},
    {"checkpoint-save", "[Rank 0] Saved optim to /ckpt/global_step_100/actor/optim_world_size_8_rank_0.pt"},
    {"checkpoint-save", "Saved dataloader state to: /ckpt/global_step_100/data.pt"},
    {"checkpoint-save", "Force saving checkpoint: ESI instance expiration approaching."},
    {"model-load", "Load from checkpoint folder: /ckpt/global_step_100"},
    {"model-load", "Resuming from /ckpt/global_step_100"},
    {"model-load", "[Rank 0] Loaded model from /ckpt/global_step_100/actor/model_world_size_8_rank_0.pt"},
    {"model-load", "Setting global step to 100"},
    {"evaluation", "Initial validation metrics: {'val-core/openai/gsm8k/reward/mean@1': 0.5}"},
    {"evaluation", "step:0 - val-core/openai/gsm8k/reward/mean@1:0.5"},
    {"training", "step:1 - actor/entropy:0.5 - actor/pg_loss:0.01 - critic/score/mean:0.2"},
    {"training", "Training Progress:  10%|█         | 100/1000 [10:00<1:30:00,  6.00s/it]"},
};

const PhaseCase kOpenRlhf[] = {
    {"checkpoint-save", "Saved best checkpoint: global_step100 (eval_reward=0.8000)"},
    {"model-load", "Loaded the checkpoint: /ckpt/checkpoints_sft, consumed_samples: 12800"},
    {"model-load", "Loading the checkpoint: /ckpt/_actor"},
    {"evaluation", "Eval stage of steps 100:  50%|█████     | 5/10 [00:05<00:05,  1.00it/s, eval gpt_loss=1.23]"},
    {"training", "Train step of epoch 0:  12%|█▏        | 120/1000 [01:00<07:20,  2.00it/s, gpt_loss=1.2, lr=2e-5]"},
    {"training", "Episode [1/1]:   3%|▎         | 3/100 [03:00<1:37:00, 60.00s/it]"},
    {"data-preprocessing", "Preprocessing data: 100%|██████████| 1000/1000 [00:00<00:00, 9000.00it/s]"},
};

const PhaseCase kPeft[] = {
    {"checkpoint-save", "UserWarning: Setting `save_embedding_layers` to `True` as embedding layers found in `target_modules`."},
    {"checkpoint-save", "UserWarning: Could not find a config file in /models/llama - will assume that the vocabulary was not modified."},
    // merge_and_unload's bar: a merge follows a load far more often than it precedes a save.
    {"model-load", "Unloading and merging model: 100%|██████████| 454/454 [00:02<00:00, 200.00it/s]"},
};

const PhaseCase kColossalAi[] = {
    {"checkpoint-save", "The model is split into checkpoint shards. You can find where each parameters has been saved in the index located at /ckpt/epoch-0_step-1000/modeling/model.safetensors.index.json."},
    {"checkpoint-save", "Start saving model checkpoint with running states"},
    {"checkpoint-save", "Start saving final model checkpoint"},
    {"model-load", "The model has been successfully loaded from sharded checkpoint: /ckpt/modeling."},
    {"model-load", "Load model checkpoint from /ckpt/epoch-0_step-1000"},
    {"evaluation", "Start evaluation..."},
};

// Lines that differ from a save line by a word, or that only look like one.
const PhaseCase kNearMisses[] = {
    {"model-load", "Loading checkpoint shards:  50%|█████     | 2/4 [00:10<00:10,  5.00s/it]"},
    {"checkpoint-save", "Saving checkpoint shards:  50%|█████     | 2/4 [00:10<00:10,  5.00s/it]"},
    {"model-load", "INFO: Loading checkpoint from /out/checkpoint-500"},
    {"checkpoint-save", "INFO: Saving checkpoint to /out/checkpoint-500"},
    {"model-load", "[Rank 0] Loaded model from /out/model.pt"},
    {"checkpoint-save", "[Rank 0] Saved model to /out/model.pt"},
    {"training", " 45%|████▌     | 450/1000 [02:10<02:39,  3.45it/s]"},
    {"(none)", "save_steps=500, save_total_limit=2, resume_from_checkpoint=None"},
    {"(none)", "Resuming from global_step500 with save_steps=500"},
    {"(none)", "Downloading model.safetensors: 100%|##########| 1.2G/1.2G [00:12<00:00, 98.1MB/s]"},
    {"(none)", "NCCL INFO comm 0x5555 rank 0 nranks 8 cudaDev 0 busId 1000 - Init COMPLETE"},
};

const std::pair<const char*, std::span<const PhaseCase>> kFrameworks[] = {
    {"transformers", kTransformers}, {"accelerate", kAccelerate}, {"Lightning", kLightning},
    {"DeepSpeed", kDeepSpeed},       {"torch", kTorch},           {"Megatron-LM", kMegatron},
    {"NeMo", kNeMo},                 {"LLaMA-Factory", kLlamaFactory}, {"axolotl", kAxolotl},
    {"TRL", kTrl},                   {"ms-swift", kSwift},        {"torchtune", kTorchtune},
    {"Unsloth", kUnsloth},           {"verl", kVerl},             {"OpenRLHF", kOpenRlhf},
    {"peft", kPeft},                 {"ColossalAI", kColossalAi}, {"latent-diffusion", kLatentDiffusion},
    {"near misses", kNearMisses},
};

const PhaseTable& project_phase_table() {
  static const auto loaded = PhaseTable::load(project_rules_dir() / "phases.json");
  if (!loaded) FAIL("rules/phases.json: " << loaded.missing().detail);
  return loaded.value();
}

void check_cases(std::span<const PhaseCase> cases) {
  const PhaseTable& table = project_phase_table();
  for (const auto& c : cases) {
    const std::string line = c.line;  // CAPTURE is a lambda: no structured bindings (clang 14)
    CAPTURE(line);
    CHECK(phase_of(table, line) == std::string(c.phase));
  }
}

}  // namespace

TEST_CASE("phase table: transformers Trainer, save_pretrained and from_pretrained") { check_cases(kTransformers); }
TEST_CASE("phase table: accelerate save_state, load_state and FSDP utilities") { check_cases(kAccelerate); }
TEST_CASE("phase table: PyTorch Lightning checkpoints and progress bars") { check_cases(kLightning); }
TEST_CASE("phase table: DeepSpeed engine, checkpoint engines and zero_to_fp32") { check_cases(kDeepSpeed); }
TEST_CASE("phase table: torch.save, torch.load and torch.distributed.checkpoint") { check_cases(kTorch); }
TEST_CASE("phase table: Megatron-LM checkpointing, evaluation and training log") { check_cases(kMegatron); }
TEST_CASE("phase table: NeMo checkpoint IO, resume and restore") { check_cases(kNeMo); }
TEST_CASE("phase table: LLaMA-Factory export, resume and dataset lines") { check_cases(kLlamaFactory); }
TEST_CASE("phase table: axolotl train, merge, quantize and dataset lines") { check_cases(kAxolotl); }
TEST_CASE("phase table: TRL dataset preparation") { check_cases(kTrl); }
TEST_CASE("phase table: ms-swift trainers, Megatron and export") { check_cases(kSwift); }
TEST_CASE("phase table: torchtune checkpointers and recipes") { check_cases(kTorchtune); }
TEST_CASE("phase table: Unsloth save, load and training banners") { check_cases(kUnsloth); }
TEST_CASE("phase table: the latent-diffusion codebase builds its model, then loads it") { check_cases(kLatentDiffusion); }
TEST_CASE("phase table: verl checkpoint managers and trainer") { check_cases(kVerl); }
TEST_CASE("phase table: OpenRLHF checkpoints and bars") { check_cases(kOpenRlhf); }
TEST_CASE("phase table: peft save and merge") { check_cases(kPeft); }
TEST_CASE("phase table: ColossalAI checkpoint_io and applications") { check_cases(kColossalAi); }
TEST_CASE("phase table: loading and saving lines that differ by a word") { check_cases(kNearMisses); }

TEST_CASE("phase table: no save pattern matches a load line and no load pattern a save line") {
  // Table order would hide such a pattern for the lines above (the earlier
  // entry wins); each pattern is tried alone here.
  const PhaseTable& table = project_phase_table();
  std::vector<std::pair<std::string, std::unique_ptr<RE2>>> compiled;
  for (std::size_t i = 0; i < table.patterns().size(); ++i) {
    compiled.emplace_back(table.phase_of_pattern(i), std::make_unique<RE2>(table.patterns()[i]));
    REQUIRE(compiled.back().second->ok());
  }
  std::size_t checked = 0;
  for (const auto& [framework_binding, cases] : kFrameworks) {
    const std::string framework = framework_binding;
    for (const auto& c : cases) {
      const std::string want = c.phase;
      if (want != "checkpoint-save" && want != "model-load") continue;
      const std::string other = want == "checkpoint-save" ? "model-load" : "checkpoint-save";
      for (std::size_t i = 0; i < compiled.size(); ++i) {
        if (compiled[i].first != other) continue;
        const std::string line = c.line;
        const std::string pattern = table.patterns()[i];
        CAPTURE(framework);
        CAPTURE(line);
        CAPTURE(pattern);
        CHECK_FALSE(RE2::PartialMatch(line, *compiled[i].second));
      }
      ++checked;
    }
  }
  CHECK(checked > 150);
}
