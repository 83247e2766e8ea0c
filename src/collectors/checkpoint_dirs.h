// Checkpoint folders left by a job, post-mortem: HF Trainer's checkpoint-N
// and tmp-checkpoint-N, DeepSpeed's global_stepN, each with its step, files,
// bytes, newest mtime and whether its save finished (collect/weights/checkpoint_scan.h).
// A global_stepN inside a checkpoint-N is part of that checkpoint.
#pragma once

#include "collectors/collector.h"

namespace ftdiag::collectors {

inline constexpr std::size_t kMaxCheckpointsPerPath = 1000;

class CheckpointDirsCollector final : public Collector {
 public:
  std::string_view name() const override { return "checkpoints"; }
  std::string_view section() const override { return "hosts[].checkpoints"; }
  Mode mode() const override { return Mode::post_mortem; }
  std::string_view looks_for() const override {
    return "checkpoint folders (checkpoint-N, tmp-checkpoint-N, global_stepN) in PATH or its sub-folders";
  }
  bool recognises(const Inventory& inventory) const override;
  evidence::CollectorReport collect(const Inventory& inventory, const CollectContext& context,
                                    evidence::EvidenceDocument& document) const override;
};

}  // namespace ftdiag::collectors
