// Activation memory per GPU, after Korthikanti et al., "Reducing Activation
// Recomputation in Large Transformer Models" (MLSys 2023, arXiv:2205.05198),
// §4.1: a transformer layer without tensor or sequence parallelism keeps
// s·b·h·(34 + 5·a·s/h) bytes in 16-bit for its backward (s sequence length,
// b micro-batch, h hidden size, a heads). The terms are kept apart so the
// same count serves today's decoders:
//   attention  11·s·b·h + 5·a·s²·b  (QKV input 2sbh, Q and K 4sbh, V 2sbh,
//              output projection input 2sbh, dropout mask sbh; softmax 2as²b,
//              its dropout mask as²b and output 2as²b); grouped-query
//              attention shrinks K and V to the kv heads' width; flash
//              attention keeps no s² term, only a log-sum-exp per head and
//              position (4 bytes);
//   MLP        19·s·b·h with a 4h inner width: input 2sbh, activation input
//              2s·b·I, second matrix input 2s·b·I, dropout mask sbh; a gated
//              MLP (SwiGLU) keeps gate, up, their product's inputs and the
//              down projection's input: 2sbh + 8s·b·I; an MoE layer that
//              routes each token to k experts keeps k times the MLP's;
//   norms      4·s·b·h (the inputs of the two layer norms).
// Dropout masks (1 byte an element) count only when the model uses dropout
// (the paper's GPT does; Llama-family models do not) or --dropout says so.
// The paper's bytes are 16-bit elements; fp32 training keeps 4 bytes each.
// Tensor parallelism over t GPUs (§4.2.1) splits what lies between the
// split matrices (sbh(10 + 24/t + 5as/(ht))); sequence parallelism (§4.2.2)
// splits the rest too (sbh/t·(34 + 5as/h)). Selective recomputation (§5)
// keeps no s x s term: sbh/t·34 with both.
// With gradient checkpointing (full recomputation) each layer keeps only its
// input (2sbh, the paper's 2sbhL in all) and one layer at a time is
// recomputed whole for its backward; ftdiag counts that layer and the
// output layer too, which the paper's figure leaves out.
// Outside the layers: the LM head's input, its 16-bit logits and their fp32
// copy for the loss (2sbh + 6·s·b·V; the vocabulary split by t).
#pragma once

#include <vector>

#include "base/fact.h"
#include "estimate/model_shape.h"
#include "estimate/term.h"
#include "estimate/training_setup.h"

namespace ftdiag::estimate {

struct ActivationOptions {
  bool dropout = false;  // dropout masks are kept (the paper's GPT)
};

struct Activations {
  double per_layer = 0;                // one layer, kept whole
  double layer_inputs = 0;             // every layer's input: what full recomputation keeps (the paper's 2sbhL)
  Term without_checkpointing;          // every layer kept whole, plus the output layer
  Term with_checkpointing;             // layer inputs, one layer recomputed, plus the output layer
  Term output_layer;                   // logits and their fp32 copy

  // The figure for the setup's choice.
  const Term& chosen(const TrainingSetup& setup) const {
    return setup.gradient_checkpointing ? with_checkpointing : without_checkpointing;
  }
};

// One layer's bytes (the paper's per-layer formula, generalised as above).
double layer_activation_bytes(const ModelShape& shape, const TrainingSetup& setup, const ActivationOptions& options = {});

// Missing when the model's dimensions are not known (a bare --params count).
Fact<Activations> activations_per_gpu(const ModelShape& shape, const TrainingSetup& setup, const ActivationOptions& options = {});

}  // namespace ftdiag::estimate
