// Facts from what a job left beside it when only logs and configs remain:
// its configurations (DeepSpeed, accelerate, recipes, the launch command, a
// hostfile, trainer_state.json) and its checkpoint folders. Each fact comes
// from the first source that says it, in an order of trust per fact (the
// file the launcher read before a recipe's copy of it); extraction reads
// and counts, the rules judge.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "facts/extract.h"

namespace ftdiag::facts {

namespace {

using evidence::EvidenceDocument;

// RFC 6901: a settings key may hold '/' or '~'.
std::string pointer_token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out.push_back(c);
  }
  return out;
}

struct Setting {
  std::string value;
  std::string pointer;
  const evidence::ConfigEvidence* config = nullptr;
};

struct Where {
  std::string_view kind;
  std::string_view key;
};

// The first config, in the order of `places`, that has the key; `accept`
// passes over values that say nothing ("auto": the trainer fills it in).
template <class Accept>
std::optional<Setting> find_setting(const EvidenceDocument& document, std::initializer_list<Where> places, Accept&& accept) {
  for (const auto& place : places) {
    for (std::size_t h = 0; h < document.hosts.size(); ++h) {
      const auto& configs = document.hosts[h].configs;
      for (std::size_t c = 0; c < configs.size(); ++c) {
        if (configs[c].kind != place.kind) continue;
        const auto it = configs[c].settings.find(std::string(place.key));
        if (it == configs[c].settings.end() || !accept(it->second)) continue;
        return Setting{it->second, fmt::format("/hosts/{}/configs/{}/settings/{}", h, c, pointer_token(place.key)), &configs[c]};
      }
    }
  }
  return std::nullopt;
}

std::optional<Setting> find_setting(const EvidenceDocument& document, std::initializer_list<Where> places) {
  return find_setting(document, places, [](const std::string& value) { return value != "auto" && value != "null"; });
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::optional<bool> as_bool(const std::string& text) {
  const auto word = lower(text);
  if (word == "true" || word == "1") return true;
  if (word == "false" || word == "0") return false;
  return std::nullopt;
}

// "8", "8.0" (a float a dump wrote) -> 8; "auto", "1:4" -> nullopt.
std::optional<std::int64_t> as_integer(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || value < 0 || value > 9e15 || value != static_cast<double>(static_cast<std::int64_t>(value))) {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(value);
}

bool is_integer(const std::string& text) { return as_integer(text).has_value(); }
bool is_bool(const std::string& text) { return as_bool(text).has_value(); }

void set_integer(FactSet& facts, const char* name, const EvidenceDocument& document, std::initializer_list<Where> places) {
  if (auto found = find_setting(document, places, is_integer)) facts.set(name, *as_integer(found->value), found->pointer);
}

// ---- DeepSpeed's ZeRO --------------------------------------------------

// A DeepSpeed config that shows more than its zero_optimization section was
// read whole enough to say that an absent offload section means none.
bool shows_whole_deepspeed_config(const evidence::ConfigEvidence& config) {
  return std::any_of(config.settings.begin(), config.settings.end(),
                     [](const auto& entry) { return !entry.first.starts_with("zero_optimization"); });
}

void offload_fact(FactSet& facts, const EvidenceDocument& document, const char* name, std::string_view section,
                  std::string_view accelerate_key) {
  const std::string device_key = fmt::format("zero_optimization.{}.device", section);
  const std::string legacy_key = section == "offload_optimizer" ? "zero_optimization.cpu_offload" : "zero_optimization.cpu_offload_param";
  if (auto found = find_setting(document, {{"deepspeed", device_key}, {"accelerate", accelerate_key},
                                           {"launch-command", fmt::format("launcher_args.{}_device", section)}})) {
    const auto device = lower(found->value);
    return facts.set(name, device == "null" ? std::string("none") : device, found->pointer);
  }
  if (auto legacy = find_setting(document, {{"deepspeed", legacy_key}}, is_bool)) {
    return facts.set(name, std::string(*as_bool(legacy->value) ? "cpu" : "none"), legacy->pointer);
  }
  if (auto stage = find_setting(document, {{"deepspeed", "zero_optimization.stage"}})) {
    if (shows_whole_deepspeed_config(*stage->config)) return facts.set(name, std::string("none"), stage->pointer);
    facts.set_missing(name, {MissingReason::not_present,
                             fmt::format("the DeepSpeed config is a fragment of zero_optimization without {}", section)});
  }
}

bool is_zero_stage(const std::string& value) {
  const auto stage = as_integer(value);
  return stage && *stage <= 3;
}

// A stage DeepSpeed would refuse ("three", 7, 2.5, a list) is said as such:
// read as no stage, the memory model would silently take its default.
void zero_stage_fact(const EvidenceDocument& document, FactSet& facts) {
  const std::initializer_list<Where> places = {
      {"deepspeed", "zero_optimization.stage"}, {"accelerate", "deepspeed_config.zero_stage"}, {"launch-command", "launcher_args.zero_stage"}};
  if (auto found = find_setting(document, places, is_zero_stage)) {
    return facts.set("config.zero_stage", *as_integer(found->value), found->pointer);
  }
  std::optional<std::pair<std::string, std::string>> refused;  // the file, the value as shown
  if (auto written = find_setting(document, places)) refused = {written->config->from.file, "\"" + written->value + "\""};
  // A list or an object flattens to keys under the stage's own.
  for (std::size_t h = 0; !refused && h < document.hosts.size(); ++h) {
    for (const auto& config : document.hosts[h].configs) {
      const auto under = config.settings.lower_bound("zero_optimization.stage.");
      if (config.kind == "deepspeed" && under != config.settings.end() && under->first.starts_with("zero_optimization.stage.")) {
        refused = {config.from.file, "a list or an object"};
        break;
      }
    }
  }
  if (!refused) return;
  facts.set_missing("config.zero_stage", {MissingReason::unparseable,
                                          fmt::format("the ZeRO stage in {} is {}; DeepSpeed's stages are 0, 1, 2 and 3",
                                                      refused->first, refused->second)});
}

void zero_facts(const EvidenceDocument& document, FactSet& facts) {
  zero_stage_fact(document, facts);
  offload_fact(facts, document, "config.offload_optimizer", "offload_optimizer", "deepspeed_config.offload_optimizer_device");
  offload_fact(facts, document, "config.offload_param", "offload_param", "deepspeed_config.offload_param_device");
  if (auto found = find_setting(document,
                                {{"deepspeed", "zero_optimization.stage3_gather_16bit_weights_on_model_save"},
                                 {"deepspeed", "zero_optimization.stage3_gather_fp16_weights_on_model_save"},
                                 {"accelerate", "deepspeed_config.zero3_save_16bit_model"}},
                                is_bool)) {
    facts.set("config.gather_16bit_weights_on_save", *as_bool(found->value), found->pointer);
  }
}

// ---- precision, fine-tuning, model ---------------------------------------

void precision_fact(const EvidenceDocument& document, FactSet& facts) {
  // A flag that is on names the precision; one that is off says nothing alone.
  auto on = [](const std::string& value) { return as_bool(value).value_or(false); };
  // LLaMA-Factory's pure_bf16: bf16 weights and Adam moments, no fp32 master.
  if (auto found = find_setting(document, {{"llamafactory", "pure_bf16"}, {"launch-command", "args.pure_bf16"}}, on)) {
    return facts.set("config.precision", std::string("pure_bf16"), found->pointer);
  }
  if (auto found = find_setting(document, {{"deepspeed", "bf16.enabled"}, {"launch-command", "args.bf16"}, {"llamafactory", "bf16"},
                                           {"axolotl", "bf16"}, {"trainer-arguments", "bf16"}}, on)) {
    return facts.set("config.precision", std::string("bf16"), found->pointer);
  }
  if (auto found = find_setting(document, {{"deepspeed", "fp16.enabled"}, {"launch-command", "args.fp16"}, {"llamafactory", "fp16"},
                                           {"axolotl", "fp16"}, {"trainer-arguments", "fp16"}}, on)) {
    return facts.set("config.precision", std::string("fp16"), found->pointer);
  }
  if (auto found = find_setting(document, {{"accelerate", "mixed_precision"}, {"launch-command", "launcher_args.mixed_precision"}})) {
    const auto mode = lower(found->value);
    return facts.set("config.precision", mode == "no" || mode == "false" ? std::string("fp32") : mode, found->pointer);
  }
  // A whole DeepSpeed config that turns neither on trains in fp32 (its default).
  if (auto found = find_setting(document, {{"deepspeed", "zero_optimization.stage"}})) {
    const auto& settings = found->config->settings;
    auto setting = [&](const char* key) {
      const auto it = settings.find(key);
      return it == settings.end() ? std::string() : lower(it->second);
    };
    // "auto" hands the choice to the trainer's arguments (transformers' and
    // LLaMA-Factory's own ds_z*_config.json are written so): those were read
    // above, and none of them set a precision. It is not fp32: it is unknown.
    if (setting("bf16.enabled") == "auto" || setting("fp16.enabled") == "auto") {
      facts.set_missing("config.precision",
                        {MissingReason::not_present,
                         fmt::format("{}'s bf16/fp16 are \"auto\" (the trainer's arguments decide) and no trainer argument, recipe or "
                                     "launch command read sets them",
                                     found->config->from.file)});
      return;
    }
    const bool says_precision = settings.count("bf16.enabled") || settings.count("fp16.enabled");
    if (says_precision && shows_whole_deepspeed_config(*found->config)) {
      const auto pointer = found->pointer.substr(0, found->pointer.rfind("/settings/")) + "/settings";
      facts.set("config.precision", std::string("fp32"), pointer);
    }
  }
}

void finetuning_fact(const EvidenceDocument& document, FactSet& facts) {
  const auto quantized = find_setting(document, {{"llamafactory", "quantization_bit"}, {"launch-command", "args.quantization_bit"},
                                                 {"axolotl", "load_in_4bit"}, {"axolotl", "load_in_8bit"}, {"launch-command", "args.load_in_4bit"}},
                                      [](const std::string& value) { return value != "null" && value != "false" && value != "False"; });
  if (auto found = find_setting(document, {{"llamafactory", "finetuning_type"}, {"launch-command", "args.finetuning_type"}, {"axolotl", "adapter"}})) {
    auto type = lower(found->value);
    if (type == "lora" && quantized) type = "qlora";
    return facts.set("config.finetuning", type, found->pointer);
  }
  if (auto found = find_setting(document, {{"peft-adapter", "peft_type"}, {"launch-command", "args.lora_r"}, {"launch-command", "args.use_lora"}})) {
    return facts.set("config.finetuning", std::string(quantized ? "qlora" : "lora"), found->pointer);
  }
  // An axolotl recipe without an adapter trains every weight.
  if (auto found = find_setting(document, {{"axolotl", "base_model"}})) facts.set("config.finetuning", std::string("full"), found->pointer);
}

void model_fact(const EvidenceDocument& document, FactSet& facts) {
  if (auto found = find_setting(document, {{"launch-command", "args.model_name_or_path"}, {"llamafactory", "model_name_or_path"},
                                           {"axolotl", "base_model"}, {"trainer-arguments", "model_name_or_path"},
                                           {"peft-adapter", "base_model_name_or_path"}, {"model-config", "_name_or_path"}})) {
    facts.set("config.model", found->value, found->pointer);
  }
}

// ---- the job's shape -----------------------------------------------------

// "localhost:0,1,2" (deepspeed --include) -> 3, for one host only.
std::optional<std::int64_t> included_gpus(const std::string& include) {
  if (include.find('@') != std::string::npos) return std::nullopt;
  const auto colon = include.find(':');
  if (colon == std::string::npos) return std::nullopt;
  return static_cast<std::int64_t>(std::count(include.begin() + static_cast<std::ptrdiff_t>(colon), include.end(), ',') + 1);
}

void shape_facts(const EvidenceDocument& document, FactSet& facts) {
  set_integer(facts, "config.gpus_per_node", document,
              {{"launch-command", "launcher_args.num_gpus"}, {"launch-command", "launcher_args.nproc_per_node"},
               {"hostfile", "hosts.0.slots"}});
  if (!facts.get("config.gpus_per_node").value) {
    if (auto found = find_setting(document, {{"launch-command", "launcher_args.include"}})) {
      if (auto gpus = included_gpus(found->value)) facts.set("config.gpus_per_node", *gpus, found->pointer);
    }
  }
  set_integer(facts, "config.nodes", document,
              {{"launch-command", "launcher_args.num_nodes"}, {"launch-command", "launcher_args.nnodes"},
               {"launch-command", "launcher_args.num_machines"}, {"accelerate", "num_machines"}, {"hostfile", "host_count"}});
  // accelerate counts processes over all machines.
  if (!facts.get("config.gpus_per_node").value) {
    auto processes = find_setting(document, {{"launch-command", "launcher_args.num_processes"}, {"accelerate", "num_processes"}}, is_integer);
    const auto& nodes = facts.get("config.nodes").value;
    const std::int64_t machines = nodes ? std::get<std::int64_t>(nodes.value()) : 1;
    if (processes && machines > 0) facts.set("config.gpus_per_node", *as_integer(processes->value) / machines, processes->pointer);
  }
  set_integer(facts, "config.save_steps", document,
              {{"launch-command", "args.save_steps"}, {"llamafactory", "save_steps"}, {"axolotl", "save_steps"},
               {"trainer-arguments", "save_steps"}, {"trainer-state", "save_steps"}});
}

// ---- what the memory model needs -----------------------------------------

// LoRA's rank, the micro-batch, the sequence length and gradient
// checkpointing, as the recipes and the Trainer's arguments name them.
void training_shape_facts(const EvidenceDocument& document, FactSet& facts) {
  set_integer(facts, "config.lora_rank", document,
              {{"launch-command", "args.lora_rank"}, {"launch-command", "args.lora_r"}, {"llamafactory", "lora_rank"},
               {"axolotl", "lora_r"}, {"peft-adapter", "r"}});
  set_integer(facts, "config.micro_batch", document,
              {{"launch-command", "args.per_device_train_batch_size"}, {"llamafactory", "per_device_train_batch_size"},
               {"axolotl", "micro_batch_size"}, {"trainer-arguments", "per_device_train_batch_size"},
               {"deepspeed", "train_micro_batch_size_per_gpu"}});
  set_integer(facts, "config.gradient_accumulation_steps", document,
              {{"launch-command", "args.gradient_accumulation_steps"}, {"llamafactory", "gradient_accumulation_steps"},
               {"axolotl", "gradient_accumulation_steps"}, {"trainer-arguments", "gradient_accumulation_steps"},
               {"deepspeed", "gradient_accumulation_steps"}, {"accelerate", "deepspeed_config.gradient_accumulation_steps"}});
  set_integer(facts, "config.sequence_length", document,
              {{"launch-command", "args.cutoff_len"}, {"launch-command", "args.max_seq_length"},
               {"launch-command", "args.model_max_length"}, {"llamafactory", "cutoff_len"}, {"axolotl", "sequence_len"},
               {"trainer-arguments", "max_seq_length"}});
  if (auto found = find_setting(document, {{"launch-command", "args.save_safetensors"}, {"llamafactory", "save_safetensors"},
                                           {"axolotl", "save_safetensors"}, {"trainer-arguments", "save_safetensors"}},
                                is_bool)) {
    facts.set("config.save_safetensors", *as_bool(found->value), found->pointer);
  }
  if (auto found = find_setting(document, {{"launch-command", "args.gradient_checkpointing"}, {"axolotl", "gradient_checkpointing"},
                                           {"trainer-arguments", "gradient_checkpointing"}},
                                is_bool)) {
    return facts.set("config.gradient_checkpointing", *as_bool(found->value), found->pointer);
  }
  // LLaMA-Factory checkpoints gradients unless told not to.
  if (auto found = find_setting(document, {{"llamafactory", "disable_gradient_checkpointing"}}, is_bool)) {
    return facts.set("config.gradient_checkpointing", !*as_bool(found->value), found->pointer);
  }
  if (auto found = find_setting(document, {{"llamafactory", "finetuning_type"}})) {
    facts.set("config.gradient_checkpointing", true, found->pointer);
  }
}

void sources_fact(const EvidenceDocument& document, FactSet& facts) {
  std::string sources;
  std::string pointer;
  for (std::size_t h = 0; h < document.hosts.size(); ++h) {
    for (std::size_t c = 0; c < document.hosts[h].configs.size(); ++c) {
      const auto& config = document.hosts[h].configs[c];
      sources += fmt::format("{}{} ({})", sources.empty() ? "" : ", ", config.kind, config.from.file);
      if (pointer.empty()) pointer = fmt::format("/hosts/{}/configs", h);
    }
  }
  if (!sources.empty()) facts.set("config.sources", sources, pointer);
}

// ---- trainer state and checkpoints ---------------------------------------

// The trainer state that got furthest.
void trainer_facts(const EvidenceDocument& document, FactSet& facts) {
  std::optional<std::int64_t> best;
  std::string pointer;
  const evidence::ConfigEvidence* state = nullptr;
  for (std::size_t h = 0; h < document.hosts.size(); ++h) {
    for (std::size_t c = 0; c < document.hosts[h].configs.size(); ++c) {
      const auto& config = document.hosts[h].configs[c];
      const auto it = config.settings.find("global_step");
      if (config.kind != "trainer-state" || it == config.settings.end()) continue;
      const auto step = as_integer(it->second);
      if (!step || (best && *step <= *best)) continue;
      best = step;
      state = &config;
      pointer = fmt::format("/hosts/{}/configs/{}/settings", h, c);
    }
  }
  if (!state) return;
  facts.set("trainer.global_step", *best, pointer + "/global_step");
  if (auto it = state->settings.find("max_steps"); it != state->settings.end() && as_integer(it->second)) {
    facts.set("trainer.max_steps", *as_integer(it->second), pointer + "/max_steps");
  }
}

// Missing with not_present or unparseable: the save did not finish (a
// folder that could not be read is neither whole nor broken).
bool known_incomplete(const evidence::CheckpointEvidence& checkpoint) {
  if (checkpoint.complete) return false;
  const auto reason = checkpoint.complete.missing().reason;
  return reason == MissingReason::not_present || reason == MissingReason::unparseable;
}

void checkpoint_facts(const EvidenceDocument& document, FactSet& facts) {
  std::int64_t count = 0, unknown = 0;
  std::optional<std::int64_t> last_step, last_complete;
  std::string last_pointer, complete_pointer, broken_pointer;
  const evidence::CheckpointEvidence* broken = nullptr;
  for (std::size_t h = 0; h < document.hosts.size(); ++h) {
    for (std::size_t i = 0; i < document.hosts[h].checkpoints.size(); ++i) {
      const auto& checkpoint = document.hosts[h].checkpoints[i];
      const std::string here = fmt::format("/hosts/{}/checkpoints/{}", h, i);
      ++count;
      const auto step = checkpoint.step ? std::optional<std::int64_t>(static_cast<std::int64_t>(*checkpoint.step)) : std::nullopt;
      if (step && (!last_step || *step > *last_step)) {
        last_step = step;
        last_pointer = here + "/step";
      }
      if (step && checkpoint.complete && (!last_complete || *step > *last_complete)) {
        last_complete = step;
        complete_pointer = here + "/complete";
      }
      if (known_incomplete(checkpoint) && (!broken || step.value_or(0) >= static_cast<std::int64_t>(broken->step.value_or(0)))) {
        broken = &checkpoint;
        broken_pointer = here + "/complete";
      }
      if (!checkpoint.complete && !known_incomplete(checkpoint)) ++unknown;
    }
  }
  if (count == 0) return;
  facts.set("checkpoint.count", count, "");  // counted over every host
  if (last_step) facts.set("checkpoint.last_step", *last_step, last_pointer);
  if (last_complete) facts.set("checkpoint.last_complete_step", *last_complete, complete_pointer);
  else facts.set_missing("checkpoint.last_complete_step", {MissingReason::not_present, "no checkpoint folder is whole"});
  if (broken) {
    facts.set("checkpoint.incomplete", true, broken_pointer);
    facts.set("checkpoint.incomplete_path", broken->from.file, broken_pointer);
    facts.set("checkpoint.incomplete_reason", broken->complete.missing().detail, broken_pointer);
  } else if (unknown == 0) {
    facts.set("checkpoint.incomplete", false, "");  // every folder is whole
  }
  const auto& save_steps = facts.get("config.save_steps").value;
  if (save_steps && std::get<std::int64_t>(save_steps.value()) > 0) {
    const auto every = std::get<std::int64_t>(save_steps.value());
    const std::int64_t done = last_complete.value_or(0);
    facts.set("trainer.next_save_step", (done / every + 1) * every, last_complete ? complete_pointer : facts.get("config.save_steps").pointer);
  }
}

// When the Trainer saves: "steps" (every save_steps), "epoch", "no" (only
// the final save_model), "best"; the Trainer's default is "steps".
void save_strategy_fact(const EvidenceDocument& document, FactSet& facts) {
  if (auto found = find_setting(document, {{"launch-command", "args.save_strategy"}, {"llamafactory", "save_strategy"},
                                           {"axolotl", "save_strategy"}, {"trainer-arguments", "save_strategy"}})) {
    facts.set("config.save_strategy", lower(found->value), found->pointer);
  }
}

}  // namespace

void extract_config_facts(const EvidenceDocument& document, const std::optional<Incident>&, FactSet& facts) {
  zero_facts(document, facts);
  precision_fact(document, facts);
  finetuning_fact(document, facts);
  model_fact(document, facts);
  shape_facts(document, facts);
  training_shape_facts(document, facts);
  save_strategy_fact(document, facts);
  sources_fact(document, facts);
  trainer_facts(document, facts);
  checkpoint_facts(document, facts);
}

}  // namespace ftdiag::facts
