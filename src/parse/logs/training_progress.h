// How many training steps a log line says were done: a progress bar's
// counter or a trainer's step line. Read on the lines just before an error,
// it tells a first step that never fit from a late failure after many steps
// that did.
//
//    45%|████▌     | 450/1000 [10:00<12:00,  1.30s/it]      tqdm (transformers' Trainer, accelerate, TRL): 450
//   Epoch 0:  13%|█▎        | 131/1000 [1:02:11<6:52:30]     a bar described as training: 131
//   [Rank 0] step=120, skipped=0, lr=[2e-05], mom=[...]     DeepSpeed's engine: 120
//   Step 30 | loss 1.23 ...                                 a loop's own line: 30
//
// A bar described as something else ("Loading checkpoint shards: 30/30",
// "Map (num_proc=8): ...") counts no step; an undescribed one is taken for
// training's (the Trainer's evaluation bar, undescribed too, is the blind
// spot). "steps" ("Total optimization steps = 1,000") and a tag like
// "global_step10" are no counters. Pure, never throws, linear time (RE2).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ftdiag::parse {

std::optional<std::uint64_t> training_steps_done(std::string_view line);

}  // namespace ftdiag::parse
