#include "estimate/training_setup.h"

namespace ftdiag::estimate {

std::string_view to_string(Finetune finetune) {
  switch (finetune) {
    case Finetune::full: return "full";
    case Finetune::lora: return "lora";
    case Finetune::qlora: return "qlora";
    case Finetune::freeze: return "freeze";
  }
  return "full";
}

std::optional<Finetune> finetune_from_string(std::string_view text) {
  for (auto f : {Finetune::full, Finetune::lora, Finetune::qlora, Finetune::freeze}) {
    if (text == to_string(f)) return f;
  }
  return std::nullopt;
}

std::string_view to_string(Precision precision) {
  switch (precision) {
    case Precision::bf16: return "bf16";
    case Precision::fp16: return "fp16";
    case Precision::fp32: return "fp32";
    case Precision::pure_bf16: return "pure_bf16";
    case Precision::amp_bf16: return "amp_bf16";
  }
  return "bf16";
}

std::optional<Precision> precision_from_string(std::string_view text) {
  for (auto p : {Precision::bf16, Precision::fp16, Precision::fp32, Precision::pure_bf16, Precision::amp_bf16}) {
    if (text == to_string(p)) return p;
  }
  return std::nullopt;
}

double bytes_per_weight(Precision precision) {
  return precision == Precision::fp32 || precision == Precision::amp_bf16 ? 4 : 2;
}

double bytes_per_activation(Precision precision) { return precision == Precision::fp32 ? 4 : 2; }

}  // namespace ftdiag::estimate
