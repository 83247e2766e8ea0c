// What a configuration is, told by its keys, not its file name: users name
// files as they like ("ds.json", "zero3.json", "train.yaml").
//
//   trainer-state      HF Trainer's trainer_state.json: global_step with
//                      log_history, max_steps or save_steps
//   accelerate         accelerate's config: compute_environment,
//                      distributed_type, deepspeed_config.zero_stage
//   deepspeed          a DeepSpeed config: zero_optimization.*,
//                      train_micro_batch_size_per_gpu, train_batch_size,
//                      fp16.enabled / bf16.enabled
//   llamafactory       a LLaMA-Factory recipe: finetuning_type, or stage
//                      with template
//   axolotl            an axolotl recipe: base_model with adapter,
//                      micro_batch_size, sequence_len or datasets
//   peft-adapter       PEFT's adapter_config.json: peft_type
//   model-config       a model's config.json: architectures, or
//                      hidden_size with num_hidden_layers
//   trainer-arguments  HF TrainingArguments (saved as JSON or YAML):
//                      output_dir with per_device_train_batch_size,
//                      save_steps or learning_rate
// Checked in that order: an accelerate config holds DeepSpeed settings, a
// LLaMA-Factory recipe trainer arguments. (A command line is
// "launch-command" and a hostfile "hostfile": config_text.h tells those by
// their syntax.)
#pragma once

#include <optional>
#include <string>

#include "parse/configs/dotted_settings.h"

namespace ftdiag::parse {

// Pure. nullopt when the settings are none of these.
std::optional<std::string> config_kind(const DottedSettings& settings);

}  // namespace ftdiag::parse
