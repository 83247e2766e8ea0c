// The phase an out-of-memory error (CUDA's or the host's) came in, from the traceback's frames:
// the stacks of transformers' Trainer, accelerate, DeepSpeed and plain loops,
// innermost frame first as parse::traceback_frames_above gives them.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "facts/frame_phase.h"

using ftdiag::facts::phase_from_frames;
using ftdiag::parse::TracebackFrame;

namespace {

const std::string kSite = "/opt/conda/lib/python3.11/site-packages/";

TracebackFrame frame(std::string file, std::uint64_t line, std::string function, std::string code = {}) {
  return TracebackFrame{.file = std::move(file), .line = line, .function = std::move(function), .code = std::move(code)};
}

std::string phase_of(const std::vector<TracebackFrame>& frames) {
  const auto phase = phase_from_frames(frames);
  return phase ? phase->phase : "none";
}

std::string because_of(const std::vector<TracebackFrame>& frames) {
  const auto phase = phase_from_frames(frames);
  REQUIRE(phase.has_value());
  return phase->because;
}

}  // namespace

TEST_CASE("gpu oom phase: backward, cited at the job's own call (case 086)") {
  const std::vector<TracebackFrame> frames{
      frame("/envs/parlai/lib/python3.9/site-packages/torch/autograd/__init__.py", 173, "backward",
            "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"),
      frame("/envs/parlai/lib/python3.9/site-packages/torch/_tensor.py", 363, "backward", "torch.autograd.backward(self, gradient)"),
      frame("/ParlAI/parlai/utils/fp16.py", 194, "backward", "loss.backward()"),
      frame("/ParlAI/parlai/core/torch_agent.py", 2314, "backward", "self.optimizer.backward(loss, update_main_grads=False)"),
      frame("/ParlAI/parlai/core/torch_generator_agent.py", 605, "_fake_forward_backward_pass", "self.backward(loss)")};
  CHECK(phase_of(frames) == "backward");
  CHECK(because_of(frames) == "`loss.backward()` in backward (utils/fp16.py:194)");
  CHECK(phase_from_frames(frames)->frame == 2);
}

TEST_CASE("gpu oom phase: gradient checkpointing re-runs forward frames inside the backward pass") {
  const std::vector<TracebackFrame> frames{
      frame(kSite + "transformers/models/llama/modeling_llama.py", 320, "forward", "attn_weights = torch.matmul(query_states, key_states)"),
      frame(kSite + "torch/nn/modules/module.py", 1520, "_call_impl", "return forward_call(*args, **kwargs)"),
      frame(kSite + "torch/utils/checkpoint.py", 288, "backward", "outputs = ctx.run_function(*detached_inputs)"),
      frame(kSite + "torch/autograd/function.py", 289, "apply", "return user_fn(self, *args)"),
      frame(kSite + "torch/autograd/graph.py", 744, "_engine_run_backward", "return Variable._execution_engine.run_backward("),
      frame(kSite + "accelerate/accelerator.py", 2151, "backward", "loss.backward(**kwargs)"),
      frame(kSite + "transformers/trainer.py", 3147, "training_step", "self.accelerator.backward(loss)")};
  CHECK(phase_of(frames) == "backward");
  CHECK(because_of(frames) == "`loss.backward(**kwargs)` in backward (accelerate/accelerator.py:2151)");
}

TEST_CASE("gpu oom phase: a module's forward under the Trainer's training step") {
  const std::vector<TracebackFrame> frames{
      frame(kSite + "transformers/models/llama/modeling_llama.py", 1196, "forward", "logits = logits.float()"),
      frame(kSite + "torch/nn/modules/module.py", 1520, "_call_impl", "return forward_call(*args, **kwargs)"),
      frame(kSite + "torch/nn/modules/module.py", 1511, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
      frame(kSite + "transformers/trainer.py", 3161, "compute_loss", "outputs = model(**inputs)"),
      frame(kSite + "transformers/trainer.py", 3138, "training_step", "loss = self.compute_loss(model, inputs)"),
      frame("/w/train.py", 88, "<module>", "trainer.train()")};
  CHECK(phase_of(frames) == "forward");
  CHECK(because_of(frames) == "`logits = logits.float()` in forward (llama/modeling_llama.py:1196)");
}

TEST_CASE("gpu oom phase: evaluation decides over the forward it runs") {
  const std::vector<TracebackFrame> frames{
      frame(kSite + "transformers/models/llama/modeling_llama.py", 1196, "forward", "logits = logits.float()"),
      frame(kSite + "torch/nn/modules/module.py", 1520, "_call_impl", "return forward_call(*args, **kwargs)"),
      frame(kSite + "transformers/trainer.py", 3161, "compute_loss", "outputs = model(**inputs)"),
      frame(kSite + "transformers/trainer.py", 3890, "prediction_step", "loss, outputs = self.compute_loss(model, inputs, return_outputs=True)"),
      frame(kSite + "transformers/trainer.py", 3688, "evaluation_loop", "losses, logits, labels = self.prediction_step(model, inputs)"),
      frame(kSite + "transformers/trainer.py", 3493, "evaluate", "output = eval_loop("),
      frame(kSite + "transformers/trainer.py", 2459, "_maybe_log_save_evaluate", "metrics = self.evaluate(ignore_keys=ignore_keys_for_eval)")};
  CHECK(phase_of(frames) == "evaluation");
  CHECK(because_of(frames).ends_with("in prediction_step (transformers/trainer.py:3890)"));
}

TEST_CASE("gpu oom phase: the optimizer step, torch's and DeepSpeed's, a scheduler's step is none") {
  const std::vector<TracebackFrame> torch_adamw{
      frame(kSite + "torch/optim/adamw.py", 136, "_init_group", "state[\"exp_avg_sq\"] = torch.zeros_like(p, memory_format=torch.preserve_format)"),
      frame(kSite + "torch/optim/adamw.py", 187, "step", "has_complex = self._init_group("),
      frame(kSite + "torch/optim/optimizer.py", 385, "wrapper", "out = func(*args, **kwargs)"),
      frame(kSite + "accelerate/optimizer.py", 170, "step", "self.optimizer.step(closure)"),
      frame(kSite + "transformers/trainer.py", 2230, "_inner_training_loop", "self.optimizer.step()")};
  CHECK(phase_of(torch_adamw) == "optimizer-step");
  CHECK(because_of(torch_adamw) == "`self.optimizer.step(closure)` in step (accelerate/optimizer.py:170)");
  const std::vector<TracebackFrame> zero{
      frame(kSite + "deepspeed/runtime/zero/stage_1_and_2.py", 1839, "step", "self._optimizer_step(i)"),
      frame(kSite + "deepspeed/runtime/engine.py", 2068, "_take_model_step", "self.optimizer.step()"),
      frame(kSite + "deepspeed/runtime/engine.py", 2174, "step", "self._take_model_step(lr_kwargs)"),
      frame("/w/train.py", 50, "main", "model_engine.step()")};
  CHECK(phase_of(zero) == "optimizer-step");
  CHECK(phase_of({frame(kSite + "torch/optim/lr_scheduler.py", 150, "step", "values = self.get_lr()"),
                  frame("/w/train.py", 52, "main", "scheduler.step()")}) == "none");
}

TEST_CASE("gpu oom phase: loading the model, by function or by the code that moves it") {
  CHECK(phase_of({frame(kSite + "torch/nn/modules/module.py", 1152, "convert", "return t.to(device, dtype)"),
                  frame(kSite + "transformers/modeling_utils.py", 3850, "_load_pretrained_model", "new_error_msgs, offload_index = _load_state_dict_into_meta_model("),
                  frame(kSite + "transformers/modeling_utils.py", 3561, "from_pretrained", ") = cls._load_pretrained_model(")}) == "model-load");
  const std::vector<TracebackFrame> moved{frame(kSite + "torch/nn/modules/module.py", 1152, "convert", "return t.to(device, dtype)"),
                                          frame(kSite + "torch/nn/modules/module.py", 1160, "to", "return self._apply(convert)"),
                                          frame("/w/train.py", 30, "main", "model = model.to(\"cuda\")")};
  CHECK(phase_of(moved) == "model-load");
  CHECK(because_of(moved) == "`model = model.to(\"cuda\")` in main (w/train.py:30)");
  CHECK(phase_of({frame(kSite + "deepspeed/__init__.py", 181, "initialize", "engine = DeepSpeedEngine(args=args,")}) == "model-load");
  // The whole model cast in place, whatever the caller's line says: Module._apply.
  CHECK(phase_of({frame(kSite + "torch/nn/modules/module.py", 797, "_apply", "module._apply(fn)"),
                  frame(kSite + "torch/nn/modules/module.py", 820, "_apply", "param_applied = fn(param)"),
                  frame("/w/llmtuner/loader.py", 88, "load_model_and_tokenizer", "model = model.half()")}) == "model-load");
}

TEST_CASE("gpu oom phase: a ZeRO-3 save gathers the 16-bit weights") {
  CHECK(phase_of({frame(kSite + "deepspeed/runtime/engine.py", 3464, "_zero3_consolidated_16bit_state_dict", "with deepspeed.zero.GatheredParameters(params, modifier_rank=0):"),
                  frame(kSite + "deepspeed/runtime/engine.py", 3530, "save_16bit_model", "state_dict = self._zero3_consolidated_16bit_state_dict()"),
                  frame(kSite + "transformers/trainer.py", 3290, "save_model", "self.model_wrapped.save_16bit_model(output_dir)")}) == "checkpoint-save");
}

TEST_CASE("gpu oom phase: frames the table does not know decide nothing") {
  CHECK(phase_of({}) == "none");
  CHECK(phase_of({frame("/w/train.py", 10, "collate", "x = torch.stack(batch).cuda(non_blocking=True)"),
                  frame("/w/train.py", 40, "main", "batch = collate(samples)")}) == "none");
}

TEST_CASE("frame phase: a dataset read whole in the job's own code is data preparation") {
  // A MemoryError while a Dataset's constructor reads the training file.
  const std::vector<TracebackFrame> frames{
      frame("/usr/lib/python3.7/codecs.py", 322, "decode", "(result, consumed) = self._buffer_decode(data, self.errors, final)"),
      frame("/work/scripts/run_lm.py", 119, "__init__", "lines = [line for line in f.read().splitlines()]"),
      frame("/work/scripts/run_lm.py", 133, "load_and_cache_examples",
            "return LineByLineTextDataset(tokenizer, args, file_path=file_path, block_size=args.block_size)"),
      frame("/work/scripts/run_lm.py", 700, "main", "train_dataset = load_and_cache_examples(args, tokenizer)")};
  CHECK(phase_of(frames) == "data-preprocessing");
}

TEST_CASE("frame phase: datasets' map and a DataLoader worker's loop are data, a save inside neither is not") {
  CHECK(phase_of({frame(kSite + "datasets/arrow_dataset.py", 3000, "_map_single", "batch = apply_function(batch)"),
                  frame(kSite + "datasets/arrow_dataset.py", 600, "map", "for rank, done, content in Dataset._map_single(**kwargs):")}) ==
        "data-preprocessing");
  CHECK(phase_of({frame(kSite + "torch/utils/data/_utils/fetch.py", 51, "fetch", "data = [self.dataset[idx] for idx in possibly_batched_index]"),
                  frame(kSite + "torch/utils/data/_utils/worker.py", 308, "_worker_loop", "data = fetcher.fetch(index)")}) ==
        "data-preprocessing");
  CHECK(phase_of({frame(kSite + "torch/serialization.py", 600, "_save", "zip_file.write_record(name, storage)"),
                  frame("/work/train.py", 90, "main", "torch.save(model.state_dict(), path)")}) == "checkpoint-save");
}

TEST_CASE("host memory phase: a process pool's map in the job's own process is data preparation") {
  const std::vector<TracebackFrame> frames{
      frame("/usr/lib/python3.11/multiprocessing/pool.py", 774, "get", "raise self._value"),
      frame("/usr/lib/python3.11/multiprocessing/pool.py", 367, "map", "return self._map_async(func, iterable, mapstar, chunksize).get()"),
      frame("prepare.py", 181, "full_prep", "_=pool.map(partial_savenpy,range(N))"),
      frame("prepare.py", 374, "<module>", "full_prep(step1=True,step2=True)")};
  CHECK(phase_of(frames) == "data-preprocessing");
}

TEST_CASE("host memory phase: a pool's map is not data preparation outside multiprocessing") {
  const std::vector<TracebackFrame> frames{frame("train.py", 10, "map", "model.map(x)")};
  CHECK(phase_of(frames) != "data-preprocessing");
}

TEST_CASE("frame phase: the serializers every save and load goes through, on Windows paths too") {
  // kohya's SDXL trainer saving with safetensors: MemoryError in _tobytes.
  CHECK(phase_of({frame("D:\\kohya_ss\\venv\\lib\\site-packages\\safetensors\\torch.py", 372, "_tobytes", "return data.tobytes()"),
                  frame("D:\\kohya_ss\\venv\\lib\\site-packages\\safetensors\\torch.py", 232, "save_file",
                        "serialize_file(_flatten(tensors), filename, metadata=metadata)"),
                  frame("D:\\kohya_ss\\library\\sdxl_model_util.py", 516, "save_stable_diffusion_checkpoint",
                        "save_file(state_dict, output_file, metadata)")}) == "checkpoint-save");
  CHECK(phase_of({frame(kSite + "torch/serialization.py", 652, "_save", "zip_file.write_record(name, storage, num_bytes)"),
                  frame(kSite + "torch/serialization.py", 441, "save", "_save(obj, opened_zipfile, pickle_module, pickle_protocol)"),
                  frame("/w/train.py", 90, "checkpoint", "torch.save(state, path)")}) == "checkpoint-save");
  CHECK(phase_of({frame(kSite + "safetensors/torch.py", 311, "load_file", "result[k] = f.get_tensor(k)"),
                  frame("/w/infer.py", 12, "main", "weights = load_file(path)")}) == "model-load");
  CHECK(phase_of({frame(kSite + "torch/serialization.py", 1014, "load", "return _load(opened_zipfile, map_location, pickle_module)"),
                  frame("/w/infer.py", 12, "main", "state = torch.load(path)")}) == "model-load");
}
