// What the memory model needs, read from a job's evidence and facts: the
// model's shape (the weights' safetensors headers, else config.json, else
// the size its name states) and the training setup (the config facts).
// `ftdiag estimate` and the estimate facts share these, so a DeepSpeed
// config reads the same in both.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "estimate/model_shape.h"
#include "estimate/training_setup.h"
#include "evidence/document.h"
#include "facts/fact_set.h"

namespace ftdiag::facts {

struct ModelFromEvidence {
  estimate::ModelShape shape;
  std::string source;   // "the safetensors headers (DIR)", "config.json (FILE)", "the model's name (NAME)"
  std::string pointer;  // into the evidence document
};

// Missing: not_present when nothing sizes the model; else the reason the
// first config.json could not (unparseable: "hidden_size is -4096", say;
// unsupported: an architecture the model does not know), naming the file.
Fact<ModelFromEvidence> model_from_evidence(const evidence::EvidenceDocument& document, const FactSet& facts);

// `defaults` with what the config facts say put over it: ZeRO stage,
// offload, the 16-bit gather, precision, what is trained, LoRA's rank, ranks
// per node (else the GPUs the node has), nodes, micro-batch, sequence length,
// gradient checkpointing, the save's format, DeepSpeed's version, and
// whether the ranks train on the CPU (a torch built without CUDA).
estimate::TrainingSetup setup_from_facts(const FactSet& facts, estimate::TrainingSetup defaults);

// DeepSpeed 0.18.7 (PR #7828) flattens ZeRO-1/2 parameter groups on the GPU
// when it has room, so initialisation no longer stages them in host memory.
bool flattens_on_gpu(std::string_view deepspeed_version);
// Whether this DeepSpeed's ZeRO-2 estimator is the one from before 0.14.3.
bool zero2_estimator_before_0_14_3(std::string_view deepspeed_version);

}  // namespace ftdiag::facts
