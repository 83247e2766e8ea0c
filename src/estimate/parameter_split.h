// Which of a model's parameters are trained and which are frozen, and how
// the frozen ones are stored: ZeRO partitions and Adam keep states only for
// trained ones, while a state-dict copy (the checkpoint save) takes them all.
#pragma once

#include <string>

#include "base/fact.h"
#include "estimate/model_shape.h"
#include "estimate/training_setup.h"

namespace ftdiag::estimate {

// bitsandbytes NF4 with double quantisation: 4 bits a weight plus the
// quantisation constants (a 8-bit absmax per 64 weights, a fp32 one per 256
// of those): about 4.13 bits, rounded up for the layers it leaves in 16-bit.
inline constexpr double kFourBitBytesPerWeight = 0.55;
// bitsandbytes LLM.int8: a byte a weight, an fp32 scale per row and the
// outlier columns in 16-bit: about 1.05.
inline constexpr double kEightBitBytesPerWeight = 1.05;
// 2-bit bases (HQQ, AQLM as LLaMA-Factory loads them): 2 bits a weight
// with a 16-bit scale and zero per group of 64: about 0.31.
inline constexpr double kTwoBitBytesPerWeight = 0.31;

// The bytes of a QLoRA base weight stored in `bits` (8, 4 or 2).
double quantized_bytes_per_weight(int bits);

struct ParameterSplit {
  double total = 0;      // Ψ: every tensor of the state dict
  double trainable = 0;  // Ψ_t
  double frozen = 0;     // Ψ_f
  double frozen_bytes_per_weight = 0;  // 2 (bf16), 4 (fp32) or ~0.55 (QLoRA's 4-bit base)
  std::string trainable_formula;       // how Ψ_t was counted
};

// Full fine-tuning trains all of them; LoRA adds rank x (in + out) for each
// adapted linear layer and freezes the base; QLoRA also stores the base in
// 8, 4 or 2 bits. Freeze-tuning trains the last N decoder layers (all of
// them, an upper bound said in the formula, when the layers are not known).
// Missing when LoRA's count needs the model's layers and only a parameter
// count is known.
Fact<ParameterSplit> split_parameters(const ModelShape& shape, const TrainingSetup& setup);

}  // namespace ftdiag::estimate
