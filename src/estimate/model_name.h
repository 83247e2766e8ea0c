// The parameter count a model's name states ("meta-llama/Llama-2-7b-hf",
// "Qwen2.5-14B-Instruct", "pythia-160m"): the last resort when neither the
// weights nor config.json are at hand. Mixture-of-experts names ("8x7B")
// do not state the total (Mixtral-8x7B holds 46.7 B, not 56 B) and are
// refused, as are names with no count or more than one.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/fact.h"

namespace ftdiag::estimate {

Fact<std::uint64_t> parameters_from_model_name(std::string_view name);

}  // namespace ftdiag::estimate
