// Host memory of one node over a job's life, by ZeRO stage, from the code
// paths of HF Trainer, accelerate and DeepSpeed (docs/memory-model.md gives
// the derivation and the source references):
//   steady      N·B per node (B: one rank's baseline) plus what offload keeps
//               in host memory (ZeRO-3: 18 bytes per trained parameter with
//               the optimizer offloaded, + the 16-bit weights with the
//               parameters too; ZeRO-2: 16);
//   model load  every rank loads the whole model below ZeRO-3 (N·b·Ψ); under
//               ZeRO-3 each rank maps one shard at a time;
//   init        DeepSpeed < 0.18.7 flattens ZeRO-1/2 groups in host memory,
//               2·b·Ψ_t per rank; ZeRO-3 defragments b·Ψ per node;
//   save        ZeRO-0/1/2: every rank clones the whole state dict to host
//               memory (accelerate's get_state_dict): N·b·Ψ, frozen weights
//               included, plus rank 0's copy of a shard for safetensors
//               (< 0.8); then DeepSpeed's model states (b·Ψ_t on rank 0) and
//               the optimizer partitions (4·Ψ_t/N_d per rank, one storage at
//               a time). ZeRO-3 with the 16-bit gather: b·Ψ on rank 0 only;
//               without it, only the optimizer partitions;
//   resume      each rank loads its optimizer partition (12·Ψ_t/N_d), and
//               below ZeRO-3 the whole model states file (b·Ψ).
#pragma once

#include <vector>

#include "estimate/parameter_split.h"
#include "estimate/term.h"
#include "estimate/training_setup.h"

namespace ftdiag::estimate {

struct CheckpointSave {
  Term peak;                 // baseline + the largest phase + offloaded states
  std::vector<Term> phases;  // the phases the peak is the largest of
  std::string largest_phase;
};

struct HostMemory {
  Term baseline;  // N·B
  Term steady;
  Term model_load;
  Term init;
  CheckpointSave checkpoint_save;
  Term resume;

  // The most the node needs while it trains and saves (steady, init,
  // checkpoint save), and when. Model load and resume are left out: how
  // much of them is anonymous memory depends on the loader (mmapped
  // safetensors are page cache) and on whether the job resumes at all.
  const Term& peak() const;
};

// `per_rank_training_bytes`: what a rank that trains on the CPU keeps in
// host memory besides its baseline (its model states, buffers and
// activations); 0 for GPU training.
HostMemory host_memory_per_node(const ParameterSplit& parameters, const TrainingSetup& setup, double per_rank_training_bytes = 0);

}  // namespace ftdiag::estimate
