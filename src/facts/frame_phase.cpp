#include "facts/frame_phase.h"

#include <algorithm>
#include <array>
#include <functional>
#include <span>
#include <string_view>

#include <fmt/format.h>

namespace ftdiag::facts {

namespace {

// A frame of a phase: its function (empty: any), a part of its file's path
// (empty: any) and of its code (empty: any). All given parts must match.
struct Signature {
  std::string_view phase;
  std::string_view function;
  std::string_view file = {};
  std::string_view code = {};
};

// The context a step's work can run in (transformers' Trainer, accelerate,
// DeepSpeed, PEFT, Lightning, and the calls a plain loop makes).
constexpr std::array kContexts = std::to_array<Signature>({
    {"checkpoint-save", "save_pretrained"},
    {"checkpoint-save", "save_model"},
    {"checkpoint-save", "_save", "trainer"},
    {"checkpoint-save", "_save_checkpoint"},
    {"checkpoint-save", "save_checkpoint"},
    {"checkpoint-save", "save_16bit_model"},  // ZeRO-3 gathers the 16-bit weights on one GPU
    {"checkpoint-save", "_zero3_consolidated_16bit_state_dict"},
    {"checkpoint-save", "save_state"},
    {"checkpoint-save", "", "", "torch.save("},
    // The serializers every save goes through, whatever called them: safetensors' save_file
    // (transformers' save_pretrained, diffusers, kohya's scripts) and torch.save itself
    // (torch/serialization.py; matched by its file's name, so a Windows path is one too).
    {"checkpoint-save", "save_file", "safetensors"},
    {"checkpoint-save", "save", "serialization"},
    {"checkpoint-save", "_save", "serialization"},
    {"evaluation", "evaluate"},
    {"evaluation", "_evaluate"},
    {"evaluation", "evaluation_loop"},
    {"evaluation", "prediction_loop"},
    {"evaluation", "prediction_step"},
    {"evaluation", "predict"},
    {"evaluation", "validation_step"},
    {"evaluation", "test_step"},
    {"evaluation", "validate"},
    {"evaluation", "eval_step"},
    {"model-load", "from_pretrained"},
    {"model-load", "load_file", "safetensors"},
    {"model-load", "load", "serialization"},
    {"model-load", "_load_pretrained_model"},
    {"model-load", "_load_state_dict_into_meta_model"},
    {"model-load", "load_state_dict"},
    {"model-load", "load_checkpoint"},
    {"model-load", "_load_from_checkpoint"},
    {"model-load", "_load_optimizer_and_scheduler"},
    {"model-load", "_move_model_to_device"},
    {"model-load", "prepare_model"},
    {"model-load", "dispatch_model"},
    {"model-load", "load_model"},
    {"model-load", "initialize", "deepspeed"},
    {"model-load", "", "", "deepspeed.initialize("},
    // Module._apply: every parameter of a model cast or moved at once (.to, .cuda, .half,
    // .float on the whole model), which is how a model is set up after its load.
    {"model-load", "_apply", "torch/nn/modules/module"},
    {"model-load", "", "", "model.to("},
    {"model-load", "", "", "model.cuda("},
    // Data: building or reading the dataset (datasets' load_dataset and map,
    // the transformers examples' load_and_cache_examples, a Dataset built in
    // the job's code) and fetching batches (a DataLoader worker's loop, the
    // DataLoader's next batch in the main process).
    {"data-preprocessing", "load_dataset", "datasets/"},
    {"data-preprocessing", "map", "datasets/"},
    {"data-preprocessing", "_map_single"},
    {"data-preprocessing", "load_and_cache_examples"},
    {"data-preprocessing", "_worker_loop", "torch/utils/data"},
    {"data-preprocessing", "fetch", "torch/utils/data"},
    {"data-preprocessing", "_next_data", "torch/utils/data"},
    {"data-preprocessing", "", "", "Dataset("},
    // Building the loaders: transformers' Trainer, LLaMA-Factory's preprocessing, and the names
    // training scripts give the function that materialises their dataset.
    {"data-preprocessing", "get_train_dataloader"},
    {"data-preprocessing", "get_eval_dataloader"},
    {"data-preprocessing", "preprocess_dataset"},
    {"data-preprocessing", "get_dataloader"},
    {"data-preprocessing", "build_dataloader"},
    {"data-preprocessing", "create_dataloader"},
    {"data-preprocessing", "get_dataset"},
    {"data-preprocessing", "build_dataset"},
    // A process pool's map in a training job's own process: the stdlib's way
    // to spread preprocessing (tokenising, decoding, feature files) over the
    // cores; the model's work never goes through it.
    {"data-preprocessing", "map", "multiprocessing/pool.py"},
    {"data-preprocessing", "starmap", "multiprocessing/pool.py"},
    {"data-preprocessing", "imap", "multiprocessing/pool.py"},
    {"data-preprocessing", "imap_unordered", "multiprocessing/pool.py"},
    // Megatron-LM's token datasets (megatron/data/ and, since core 0.4,
    // megatron/core/datasets/indexed_dataset.py: the builder's add_item,
    // add_document and finalize, the reader's index) and its tokenising
    // script, tools/preprocess_data.py, which NeMo and Megatron's forks ship too.
    {"data-preprocessing", "", "indexed_dataset.py"},
    {"data-preprocessing", "", "tools/preprocess_data.py"},
});

// The parts of a training step, in the order they decide.
constexpr std::array kBackward = std::to_array<Signature>({
    {"backward", "backward"},              // torch.Tensor.backward, torch.autograd, accelerate, DeepSpeed's engine
    {"backward", "_engine_run_backward"},  // torch 2.3+
    {"backward", "", "", ".backward("},
    {"backward", "", "", "run_backward("},
});

constexpr std::array kOptimizerStep = std::to_array<Signature>({
    {"optimizer-step", "step", "optim"},  // torch.optim, bitsandbytes.optim, accelerate/optimizer.py
    {"optimizer-step", "step", "/zero/"},  // DeepSpeed's ZeRO optimizers
    {"optimizer-step", "step", "deepspeed/runtime/engine.py"},
    {"optimizer-step", "_take_model_step"},
    {"optimizer-step", "_init_group"},  // torch.optim creates the states at the first step
    {"optimizer-step", "", "", "optimizer.step("},
    {"optimizer-step", "", "", "scaler.step("},
});

constexpr std::array kForward = std::to_array<Signature>({
    {"forward", "forward"},
    {"forward", "_call_impl"},
    {"forward", "_wrapped_call_impl"},
    {"forward", "compute_loss"},
});

bool matches(const Signature& s, const parse::TracebackFrame& f) {
  if (!s.function.empty() && f.function != s.function) return false;
  if (!s.file.empty() && f.file.find(s.file) == std::string::npos) return false;
  if (!s.code.empty() && f.code.find(s.code) == std::string::npos) return false;
  // A learning-rate scheduler's step() allocates nothing on the GPU.
  return !(s.function == "step" && f.file.find("scheduler") != std::string::npos);
}

const Signature* signature_of(std::span<const Signature> table, const parse::TracebackFrame& frame) {
  for (const auto& s : table) {
    if (matches(s, frame)) return &s;
  }
  return nullptr;
}

bool inside_torch(const parse::TracebackFrame& frame) { return frame.file.find("-packages/torch/") != std::string::npos; }

// "parlai/utils/fp16.py" of a long path: enough to find it.
std::string_view short_path(std::string_view file) {
  auto cut = file.rfind('/');
  if (cut != std::string_view::npos && cut > 0) cut = file.rfind('/', cut - 1);
  return cut == std::string_view::npos ? file : file.substr(cut + 1);
}

// Of the frames of `phase`, the innermost of the job's own code (torch's
// internals say less about what the job did), else the innermost.
PhaseFromFrames cite(const std::vector<parse::TracebackFrame>& frames, std::string_view phase,
                     const std::function<bool(const parse::TracebackFrame&)>& of_phase) {
  std::optional<std::size_t> chosen;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (!of_phase(frames[i])) continue;
    if (!chosen) chosen = i;
    if (!inside_torch(frames[i])) {
      chosen = i;
      break;
    }
  }
  const auto& f = frames[*chosen];
  const auto place = fmt::format("{} ({}:{})", f.function, short_path(f.file), f.line);
  return PhaseFromFrames{std::string(phase), f.code.empty() ? place : fmt::format("`{}` in {}", f.code.substr(0, 160), place), *chosen};
}

}  // namespace

std::optional<PhaseFromFrames> phase_from_frames(const std::vector<parse::TracebackFrame>& frames) {
  for (const auto& frame : frames) {
    if (const auto* context = signature_of(kContexts, frame)) {
      const auto phase = context->phase;
      return cite(frames, phase, [&](const parse::TracebackFrame& f) {
        const auto* s = signature_of(kContexts, f);
        return s && s->phase == phase;
      });
    }
  }
  const std::array<std::span<const Signature>, 3> steps{kBackward, kOptimizerStep, kForward};
  for (const auto table : steps) {
    const auto of_table = [&](const parse::TracebackFrame& f) { return signature_of(table, f) != nullptr; };
    if (std::any_of(frames.begin(), frames.end(), of_table)) return cite(frames, table.front().phase, of_table);
  }
  return std::nullopt;
}

}  // namespace ftdiag::facts
