#include <doctest/doctest.h>

#include "parse/weights/checkpoint_names.h"

using namespace ftdiag::parse;

TEST_CASE("checkpoint_names: names of checkpoint folders") {
  CHECK(checkpoint_name("checkpoint-500")->step == 500);
  CHECK(checkpoint_name("checkpoint-500")->layout == CheckpointLayout::hf_trainer);
  CHECK(checkpoint_name("tmp-checkpoint-7")->layout == CheckpointLayout::trainer_temporary);
  CHECK(checkpoint_name("global_step1200")->step == 1200);
  CHECK_FALSE(checkpoint_name("checkpoint-final"));
  CHECK_FALSE(checkpoint_name("checkpoints"));
  CHECK_FALSE(checkpoint_name("global_step"));
}
