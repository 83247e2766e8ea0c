// The frames of a Python traceback above its exception line, as logs hold
// them: plain, behind torchrun's "[rank0]: " on every line, with 3.11's
// carets, cut short at the top, and beside lines that are no traceback.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "parse/logs/python_traceback.h"

using ftdiag::parse::traceback_frames_above;
using ftdiag::parse::TracebackFrame;

namespace {

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    lines.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

// The frames above the last line of `text`.
std::vector<TracebackFrame> frames_of(std::string_view text) {
  const auto lines = lines_of(text);
  REQUIRE_FALSE(lines.empty());
  return traceback_frames_above(lines, lines.size() - 1);
}

}  // namespace

TEST_CASE("python traceback: ParlAI's backward pass (case 086), innermost first") {
  const auto frames = frames_of(
      "rank:  3 | 2022-04-03 18:44:26,615 CRITICAL | Traceback (most recent call last):\n"
      "  File \"/mnt/lustre/zhaojianqiao/ParlAI/parlai/core/torch_generator_agent.py\", line 605, in _fake_forward_backward_pass\n"
      "    self.backward(loss)\n"
      "  File \"/mnt/lustre/zhaojianqiao/ParlAI/parlai/utils/fp16.py\", line 194, in backward\n"
      "    loss.backward()\n"
      "  File \"/mnt/lustre/zhaojianqiao/anaconda3/envs/parlai/lib/python3.9/site-packages/torch/autograd/__init__.py\", line 173, in backward\n"
      "    Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass\n"
      "RuntimeError: CUDA out of memory. Tried to allocate 21.06 GiB");
  REQUIRE(frames.size() == 3);
  CHECK(frames[0].function == "backward");
  CHECK(frames[0].file == "/mnt/lustre/zhaojianqiao/anaconda3/envs/parlai/lib/python3.9/site-packages/torch/autograd/__init__.py");
  CHECK(frames[0].line == 173);
  CHECK(frames[0].code == "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass");
  CHECK(frames[0].index == 5);
  CHECK(frames[1].code == "loss.backward()");
  CHECK(frames[2].function == "_fake_forward_backward_pass");
  CHECK(frames[2].index == 1);
}

TEST_CASE("python traceback: torchrun's rank prefix on every line, 3.11's carets skipped") {
  const auto frames = frames_of(
      "[rank0]: Traceback (most recent call last):\n"
      "[rank0]:   File \"/w/train.py\", line 88, in <module>\n"
      "[rank0]:     trainer.train()\n"
      "[rank0]:   File \"/w/site-packages/torch/nn/modules/module.py\", line 1520, in _call_impl\n"
      "[rank0]:     return forward_call(*args, **kwargs)\n"
      "[rank0]:            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "[rank0]:   File \"/w/site-packages/torch/nn/functional.py\", line 2264, in embedding\n"
      "[rank0]:            ^^^^^^^^^^^^^^^^^^^^^\n"
      "[rank0]: torch.OutOfMemoryError: CUDA out of memory.");
  REQUIRE(frames.size() == 3);
  CHECK(frames[0].function == "embedding");
  CHECK(frames[0].code.empty());  // only carets under it
  CHECK(frames[1].code == "return forward_call(*args, **kwargs)");
  CHECK(frames[2].code == "trainer.train()");
}

TEST_CASE("python traceback: only the traceback that ends at the line, never an earlier one") {
  const auto frames = frames_of(
      "Traceback (most recent call last):\n"
      "  File \"/w/a.py\", line 1, in first\n"
      "    raise ValueError()\n"
      "ValueError\n"
      "\n"
      "During handling of the above exception, another exception occurred:\n"
      "\n"
      "Traceback (most recent call last):\n"
      "  File \"/w/b.py\", line 2, in second\n"
      "    x.cuda()\n"
      "RuntimeError: CUDA out of memory.");
  REQUIRE(frames.size() == 1);
  CHECK(frames[0].function == "second");
}

TEST_CASE("python traceback: a tail that starts inside the traceback, and lines that end it upwards") {
  const auto cut = frames_of(
      "    return forward_call(*args, **kwargs)\n"
      "  File \"/w/model.py\", line 12, in forward\n"
      "    h = self.mlp(x)\n"
      "RuntimeError: CUDA out of memory.");
  REQUIRE(cut.size() == 1);
  CHECK(cut[0].line == 12);
  // Output printed long before the error is not its traceback.
  const auto far = frames_of(
      "  File \"/w/old.py\", line 3, in warn\n"
      "step 1\nstep 2\nstep 3\nstep 4\nstep 5\nstep 6\nstep 7\n"
      "RuntimeError: CUDA out of memory.");
  CHECK(far.empty());
  CHECK(frames_of("loss 1.0\nRuntimeError: CUDA out of memory.").empty());
}

TEST_CASE("python traceback: lines that only look like frames") {
  CHECK(frames_of("  File \"/w/a.py\", line x, in f\nRuntimeError: x").empty());
  CHECK(frames_of("  File \"/w/a.py\", line 7 in f\nRuntimeError: x").empty());  // faulthandler's form
  CHECK(frames_of("  File \"/w/a.py\", line 7, in \nRuntimeError: x").empty());
  const std::vector<std::string_view> none;
  CHECK(traceback_frames_above(none, 0).empty());
  CHECK(traceback_frames_above(none, 3).empty());
}

TEST_CASE("python traceback: pasted into an issue form, indentation lost and blank lines between frames") {
  const auto frames = frames_of(
      "File \"/home/x/scripts/run_language_modeling.py\", line 133, in load_and_cache_examples\n"
      "    return LineByLineTextDataset(tokenizer, args, file_path=file_path, block_size=args.block_size)\n"
      "\n"
      "  File \"/home/x/scripts/run_language_modeling.py\", line 119, in __init__\n"
      "    lines = [line for line in f.read().splitlines()]\n"
      "\n"
      "MemoryError");
  REQUIRE(frames.size() == 2);
  CHECK(frames[0].function == "__init__");
  CHECK(frames[1].function == "load_and_cache_examples");
  CHECK(frames[1].code == "return LineByLineTextDataset(tokenizer, args, file_path=file_path, block_size=args.block_size)");
  CHECK(frames[1].index == 0);
  // A line that only mentions a file in prose is no frame.
  CHECK(frames_of("see File \"x.py\" for details\nMemoryError").empty());
}

namespace {

ftdiag::parse::TracebackFrame frame(std::string file, std::uint64_t line, std::string function) {
  ftdiag::parse::TracebackFrame f;
  f.file = std::move(file);
  f.line = line;
  f.function = std::move(function);
  return f;
}

}  // namespace

TEST_CASE("python traceback: a recursion's frames repeat whole from the innermost outwards") {
  using ftdiag::parse::repeating_frames;
  using ftdiag::parse::RepeatingFrames;
  const auto a = frame("base.py", 1191, "unk_token_id");
  const auto b = frame("fast.py", 329, "convert_tokens_to_ids");
  const auto c = frame("fast.py", 336, "_convert_token_to_id");
  const auto main_frame = frame("train.py", 10, "<module>");
  // A cycle of three, twice, below the script's frame.
  const std::vector<TracebackFrame> cycle{c, b, a, c, b, a, main_frame};
  CHECK(repeating_frames(cycle) == RepeatingFrames{3, 6});
  // One frame re-entered alone.
  CHECK(repeating_frames(std::vector<TracebackFrame>{a, a, a, a, main_frame}) == RepeatingFrames{1, 4});
  // Too few to say: one cycle, or fewer than four frames.
  CHECK(repeating_frames(std::vector<TracebackFrame>{c, b, a, main_frame}) == std::nullopt);
  CHECK(repeating_frames(std::vector<TracebackFrame>{a, a, a}) == std::nullopt);
  CHECK(repeating_frames(std::vector<TracebackFrame>{}) == std::nullopt);
  // Nested modules call through one helper, each around its own forward: never whole.
  const auto call = frame("module.py", 1501, "_call_impl");
  const std::vector<TracebackFrame> nested{frame("linear.py", 114, "forward"), call, frame("attn.py", 50, "forward"), call,
                                           frame("layer.py", 80, "forward"), call, frame("model.py", 200, "forward"), call};
  CHECK(repeating_frames(nested) == std::nullopt);
  // The same function on another line is another frame.
  CHECK(repeating_frames(std::vector<TracebackFrame>{a, frame("base.py", 1192, "unk_token_id"), a, a}) == std::nullopt);
}

TEST_CASE("python traceback: a recursion shortened by hand with '...' still repeats across the cut") {
  using ftdiag::parse::repeating_frames_across_elisions;
  using ftdiag::parse::RepeatingFrames;
  // Two frames that call each other; the paste left out an odd number of
  // frames at the "...", so the period breaks there.
  const std::string text =
      "  File \"engine.py\", line 469, in __getattr__\n"
      "    if name in dir(self):\n"
      "  File \"module.py\", line 2403, in __dir__\n"
      "    parameters = list(self._parameters.keys())\n"
      "  File \"engine.py\", line 469, in __getattr__\n"
      "    if name in dir(self):\n"
      "  File \"module.py\", line 2403, in __dir__\n"
      "    parameters = list(self._parameters.keys())\n"
      "...\n"
      "  File \"module.py\", line 2403, in __dir__\n"
      "    parameters = list(self._parameters.keys())\n"
      "  File \"engine.py\", line 469, in __getattr__\n"
      "    if name in dir(self):\n";
  const auto lines = lines_of(text);
  const auto frames = traceback_frames_above(lines, lines.size());
  REQUIRE(frames.size() == 6);
  CHECK(ftdiag::parse::repeating_frames(frames) == std::nullopt);
  CHECK(repeating_frames_across_elisions(frames, lines) == RepeatingFrames{2, 6});
  // Without the "..." the break is real: two different stacks, no recursion.
  std::string unmarked = text;
  unmarked.replace(unmarked.find("...\n"), 4, "");
  const auto plain_lines = lines_of(unmarked);
  CHECK(repeating_frames_across_elisions(traceback_frames_above(plain_lines, plain_lines.size()), plain_lines) == std::nullopt);
  // Below the cut, a frame that is not one of the cycle's: no recursion claimed.
  std::string foreign = text;
  foreign.replace(foreign.rfind("engine.py"), 9, "other.py");
  const auto foreign_lines = lines_of(foreign);
  CHECK(repeating_frames_across_elisions(traceback_frames_above(foreign_lines, foreign_lines.size()), foreign_lines) == std::nullopt);
}
