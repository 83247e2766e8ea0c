// Training steps a log line counts: tqdm bars (the Trainer's, accelerate's),
// DeepSpeed's step lines, a loop's own "Step N"; and the numbers that are
// no step counter.
#include <doctest/doctest.h>

#include <string_view>

#include "parse/logs/training_progress.h"

using ftdiag::parse::training_steps_done;

TEST_CASE("training progress: a progress bar's counter, the last redraw of the line") {
  CHECK(training_steps_done(" 45%|████▌     | 450/1000 [10:00<12:00,  1.30s/it]") == 450u);
  CHECK(training_steps_done("  0%|          | 0/1000 [00:00<?, ?it/s]") == 0u);
  CHECK(training_steps_done("  1%|          | 7/1000 [00:10<23:01,  1.39s/it]  1%|          | 8/1000 [00:11<22:59,  1.39s/it]") == 8u);
  CHECK(training_steps_done("100%|██████████| 72/72 [33:13<00:00, 22.84s/it][INFO|trainer.py:4309] 2026-04-22 >> Saving") == 72u);
  CHECK(training_steps_done("[rank0]: Epoch 0:  13%|█▎        | 131/1000 [1:02:11<6:52:30, 28.48s/it, loss=1.23]") == 131u);
  CHECK(training_steps_done("Train:  45%|████▌     | 450/1000 [10:00<12:00,  1.30s/it]") == 450u);  // ms-swift
}

TEST_CASE("training progress: bars of other work count no step") {
  CHECK_FALSE(training_steps_done("Loading checkpoint shards: 100%|██████████| 30/30 [01:02<00:00,  2.08s/it]"));
  CHECK_FALSE(training_steps_done("Map (num_proc=8):  10%|█         | 1000/10000 [00:01<00:09, 900.00 examples/s]"));
  CHECK_FALSE(training_steps_done("Val:  50%|█████     | 10/20 [00:01<00:01,  9.50it/s]"));
  // The line's last state decides: training's bar, then a save's.
  CHECK_FALSE(training_steps_done(" 99%|█████████▉| 99/100 [01:00<00:00, 1.6it/s]Saving shards:  50%|█████     | 1/2 [00:01<00:01,  1.0s/it]"));
}

TEST_CASE("training progress: step lines") {
  CHECK(training_steps_done("[2024-05-08 08:47:31,261] [INFO] [logging.py:96:log_dist] [Rank 0] step=120, skipped=0, lr=[2e-05]") == 120u);
  CHECK(training_steps_done("Step 30 | loss 1.2345 | lr 1e-5") == 30u);
  CHECK(training_steps_done("train step: 12 loss: 0.5") == 12u);
}

TEST_CASE("training progress: numbers that count no step") {
  for (std::string_view line : {"  Total optimization steps = 1,000", "  Gradient Accumulation steps = 4", "Saving to out/global_step10",
                                "{'loss': 1.0, 'learning_rate': 1e-05, 'epoch': 0.5}", "Loading checkpoint shards: 2/4", "lr 3/4 [warm]",
                                "NCCL INFO Channel 00/02 :    0   1", "max_steps: 1000", ""}) {
    CHECK_MESSAGE(!training_steps_done(line), line);
  }
}
