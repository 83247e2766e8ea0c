// Facts of a CUDA out-of-memory error, from logs read by the project's own
// scanner (as `ftdiag analyze` reads them) and from a run's console: the
// allocator's sizes, the phase from the traceback or else from the log, the
// steps before it, and the evidence each fact points at.
#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>

#include "evidence_builder.h"
#include "facts/extract.h"
#include "unit/collectors/log_scan_testing.h"

using namespace ftdiag;
using namespace ftdiag::facts::testing;

namespace {

constexpr std::int64_t kMiB = std::int64_t{1} << 20;
constexpr std::int64_t kGiB = std::int64_t{1} << 30;

std::int64_t printed(double value, std::int64_t unit) { return static_cast<std::int64_t>(value * static_cast<double>(unit) + 0.5); }

// A document holding `text` as a log file found beside the job.
evidence::EvidenceDocument with_log(const std::string& text) {
  evidence::EvidenceDocument document;
  evidence::host_named(document, "").logs.push_back(collectors::testing::scan(text).log);
  return document;
}

std::string case_086_console() {
  std::ifstream in(std::string(FTDIAG_FIXTURES_DIR) + "/../cases/086/job/console.log");
  REQUIRE(in.good());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A Trainer's forward pass that ran out of memory at step 451 (torch 2.2+,
// Python 3.11: carets under the code).
const std::string kTrainerForward =
    "***** Running training *****\n"
    " 45%|████▌     | 450/1000 [10:00<12:00,  1.30s/it]\n"
    "Traceback (most recent call last):\n"
    "  File \"/w/train.py\", line 88, in <module>\n"
    "    trainer.train()\n"
    "  File \"/opt/conda/lib/python3.11/site-packages/transformers/trainer.py\", line 3161, in compute_loss\n"
    "    outputs = model(**inputs)\n"
    "              ^^^^^^^^^^^^^^^\n"
    "  File \"/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py\", line 1520, in _call_impl\n"
    "    return forward_call(*args, **kwargs)\n"
    "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
    "  File \"/opt/conda/lib/python3.11/site-packages/transformers/models/llama/modeling_llama.py\", line 1196, in forward\n"
    "    logits = logits.float()\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.83 GiB. GPU 0 has a total capacity of 79.15 GiB of which "
    "1.10 GiB is free. Process 812 has 1.20 GiB memory in use. Including non-PyTorch memory, this process has 76.84 GiB memory in use. "
    "Of the allocated memory 75.70 GiB is allocated by PyTorch, and 524.00 MiB is reserved by PyTorch but unallocated. If reserved but "
    "unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
    "documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)\n";

}  // namespace

TEST_CASE("gpu oom facts: case 086, the backward pass in torch 1.x's words") {
  const auto facts = facts::extract_facts(with_log(case_086_console()));
  CHECK(value_of<std::int64_t>(facts, "gpu_oom.requested_bytes") == printed(21.06, kGiB));
  CHECK(facts.get("gpu_oom.requested_bytes").pointer == "/hosts/0/logs/0/events/0/text");
  CHECK(value_of<std::int64_t>(facts, "gpu_oom.gpu") == 3);
  CHECK(value_of<std::int64_t>(facts, "gpu_oom.total_bytes") == printed(79.35, kGiB));
  CHECK(value_of<std::int64_t>(facts, "gpu_oom.free_bytes") == printed(8.57, kGiB));
  CHECK(value_of<std::int64_t>(facts, "gpu_oom.allocated_bytes") == printed(63.19, kGiB));
  CHECK(value_of<std::int64_t>(facts, "gpu_oom.reserved_bytes") == printed(68.48, kGiB));
  const auto unallocated = printed(68.48, kGiB) - printed(63.19, kGiB);
  CHECK(value_of<std::int64_t>(facts, "gpu_oom.reserved_unallocated_bytes") == unallocated);
  CHECK(value_of<double>(facts, "gpu_oom.fragmentation_ratio") == doctest::Approx(5.29 / 68.48).epsilon(0.001));
  // 21.06 GiB asked for, 8.57 free and 5.29 cached: 7.20 GiB short even had the cache been one block.
  CHECK(value_of<std::int64_t>(facts, "gpu_oom.shortfall_bytes") == printed(21.06, kGiB) - printed(8.57, kGiB) - unallocated);
  CHECK(value_of<std::string>(facts, "gpu_oom.message_release") == "1.5");
  CHECK(missing_reason(facts, "gpu_oom.process_bytes") == "torch 1.5's wording of the message does not print it");
  CHECK(value_of<std::string>(facts, "gpu_oom.phase") == "backward");
  CHECK(value_of<std::string>(facts, "gpu_oom.phase_because") == "the traceback's frame `loss.backward()` in backward (utils/fp16.py:194)");
  CHECK(facts.get("gpu_oom.phase").pointer == "/hosts/0/logs/0/tail/5/text");  // line 6 of the file: the fp16.py frame
  CHECK(missing_reason(facts, "gpu_oom.steps_before") == "no progress bar or step line before the error in the log's last lines");
}

TEST_CASE("gpu oom facts: a forward pass after 450 steps, with another process on the GPU") {
  const auto facts = facts::extract_facts(with_log(kTrainerForward));
  CHECK(value_of<std::string>(facts, "gpu_oom.message_release") == "2.2");
  CHECK(value_of<std::string>(facts, "gpu_oom.phase") == "forward");
  CHECK(value_of<std::string>(facts, "gpu_oom.phase_because") ==
        "the traceback's frame `logits = logits.float()` in forward (llama/modeling_llama.py:1196)");
  CHECK(value_of<std::int64_t>(facts, "gpu_oom.steps_before") == 450);
  CHECK(facts.get("gpu_oom.steps_before").pointer == "/hosts/0/logs/0/tail/1/text");
  CHECK(value_of<std::int64_t>(facts, "gpu_oom.process_bytes") == printed(76.84, kGiB));
  CHECK(value_of<std::int64_t>(facts, "gpu_oom.other_processes_bytes") == printed(1.2, kGiB));
  CHECK(value_of<std::int64_t>(facts, "gpu_oom.reserved_bytes") == printed(75.7, kGiB) + 524 * kMiB);
  CHECK(value_of<std::int64_t>(facts, "gpu_oom.shortfall_bytes") == printed(7.83, kGiB) - printed(1.1, kGiB) - 524 * kMiB);
}

TEST_CASE("gpu oom facts: in a container, this process is one of the \"Process N\"") {
  const auto facts = facts::extract_facts(with_log(
      "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB. GPU 0 has a total capacty of 14.58 GiB of which "
      "34.50 MiB is free. Process 4125680 has 14.54 GiB memory in use. Of the allocated memory 14.38 GiB is allocated by PyTorch, and "
      "30.60 MiB is reserved by PyTorch but unallocated.\n"));
  CHECK(value_of<std::string>(facts, "gpu_oom.message_release") == "2.1");
  CHECK(missing_reason(facts, "gpu_oom.other_processes_bytes").find("which \"Process N\" entries are others is unknown") != std::string::npos);
  CHECK(missing_reason(facts, "gpu_oom.process_bytes").find("in a container") != std::string::npos);
  CHECK(value_of<std::int64_t>(facts, "gpu_oom.shortfall_bytes") == 0);  // 64 MiB asked, 34.5 free + 30.6 cached
}

TEST_CASE("gpu oom facts: without a traceback, the phase the log was in") {
  const auto facts = facts::extract_facts(with_log(
      "Loading checkpoint shards: 100%|██████████| 30/30 [01:02<00:00,  2.08s/it]\n"
      "RuntimeError: CUDA out of memory. Tried to allocate 500.00 MiB (GPU 0; 23.69 GiB total capacity; 22.80 GiB already allocated; "
      "120.94 MiB free; 22.85 GiB reserved in total by PyTorch)\n"));
  CHECK(value_of<std::string>(facts, "gpu_oom.phase") == "model-load");
  CHECK(value_of<std::string>(facts, "gpu_oom.phase_because").starts_with("the log's last phase line (no traceback frame decided): Loading checkpoint shards"));
  CHECK(facts.get("gpu_oom.phase").pointer == facts.get("phase.at_death").pointer);
  // The loader's bar counts shards, not steps.
  CHECK_FALSE(facts.get("gpu_oom.steps_before").value);
}

TEST_CASE("gpu oom facts: a CUDA error outside the allocator has no sizes, its frames still tell the phase") {
  const auto facts = facts::extract_facts(with_log(
      "Traceback (most recent call last):\n"
      "  File \"/w/train.py\", line 40, in main\n"
      "    optimizer.step()\n"
      "RuntimeError: CUDA error: out of memory\n"));
  CHECK(value_of<std::string>(facts, "log.cuda_oom") == "RuntimeError: CUDA error: out of memory");
  CHECK(missing_reason(facts, "gpu_oom.requested_bytes").find("not PyTorch's allocator message") != std::string::npos);
  CHECK(value_of<std::string>(facts, "gpu_oom.phase") == "optimizer-step");
}

TEST_CASE("gpu oom facts: no out-of-memory line, no facts") {
  const auto facts = facts::extract_facts(with_log("{'loss': 1.0}\nall done\n"));
  CHECK(missing_reason(facts, "gpu_oom.requested_bytes") == "no evidence for it in this record");
  CHECK_FALSE(facts.get("gpu_oom.phase").value);
}

TEST_CASE("gpu oom facts: a run's console, its stdout interleaved with the traceback on stderr") {
  auto run = run_started();
  add_process(run, kJobPid, {"python", "train.py"}, 30.0, ExitStatus::exited(1));
  end_run(run, 30.5, ExitStatus::exited(1));
  const std::string oom =
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 6.81 "
      "MiB is free. Including non-PyTorch memory, this process has 79.08 GiB memory in use. Of the allocated memory 60.00 GiB is "
      "allocated by PyTorch, and 18.50 GiB is reserved by PyTorch but unallocated.";
  const auto line = [](double at, char stream, std::string text) { return evidence::ConsoleLine{kStart + at, stream, std::move(text)}; };
  run.console.tail = {line(10, 'e', "  0%|          | 0/1000 [00:00<?, ?it/s]"),
                      line(29, 'e', "Traceback (most recent call last):"),
                      line(29, 'e', "  File \"/w/train.py\", line 61, in main"),
                      line(29, 'o', "{'grad_norm': 3.1}"),
                      line(29, 'e', "    optimizer.step()"),
                      line(29, 'e', "  File \"/usr/lib/python3/dist-packages/torch/optim/adamw.py\", line 136, in _init_group"),
                      line(29, 'o', "saving metrics"),
                      line(29, 'e', "    state[\"exp_avg\"] = torch.zeros_like(p)"),
                      line(29.5, 'e', oom)};
  run.console.line_count = 40;
  evidence::LogEvent event{.kind = "cuda-oom", .time = kStart + 29.5, .from = {.collector = "console", .file = "console.log", .line = 40},
                           .text = oom};
  run.console.events = {event};
  const auto facts = facts::extract_facts(document_of({run}));
  CHECK(value_of<std::string>(facts, "gpu_oom.phase") == "optimizer-step");
  CHECK(value_of<std::string>(facts, "gpu_oom.phase_because") == "the traceback's frame `optimizer.step()` in main (w/train.py:61)");
  CHECK(facts.get("gpu_oom.phase").pointer == "/hosts/0/runs/0/console/tail/2/text");
  CHECK(value_of<std::int64_t>(facts, "gpu_oom.steps_before") == 0);
  CHECK(facts.get("gpu_oom.requested_bytes").pointer == "/hosts/0/runs/0/console/events/0/text");
  CHECK(value_of<std::int64_t>(facts, "gpu_oom.other_processes_bytes") == 0);
  CHECK(value_of<double>(facts, "gpu_oom.fragmentation_ratio") == doctest::Approx(18.5 / 78.5));
}
