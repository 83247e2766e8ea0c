// Activations against Korthikanti et al. 2022, §4.1: a GPT layer keeps
// s·b·h·(34 + 5·a·s/h) bytes (16-bit, dropout, attention scores kept).
#include <doctest/doctest.h>

#include "estimate/activations.h"

using namespace ftdiag::estimate;

namespace {

ModelShape gpt(std::uint64_t hidden, std::uint64_t heads, std::uint64_t layers) {
  ModelShape shape;
  shape.hidden = hidden;
  shape.heads = heads;
  shape.kv_heads = heads;
  shape.layers = layers;
  shape.vocab = 51200;
  shape.intermediate = 4 * hidden;
  shape.parameters = 12 * layers * hidden * hidden;
  return shape;
}

TrainingSetup batch(std::uint64_t micro_batch, std::uint64_t sequence, Attention attention) {
  TrainingSetup setup;
  setup.micro_batch = micro_batch;
  setup.sequence_length = sequence;
  setup.attention = attention;
  return setup;
}

}  // namespace

TEST_CASE("activations: the paper's per-layer formula, sbh(34 + 5as/h), for GPT-3 175B and a 22B model") {
  for (auto [h, a, s, b] : {std::tuple{12288.0, 96.0, 2048.0, 1.0}, std::tuple{6144.0, 64.0, 2048.0, 4.0}}) {
    const auto shape = gpt(static_cast<std::uint64_t>(h), static_cast<std::uint64_t>(a), 2);
    const auto setup = batch(static_cast<std::uint64_t>(b), static_cast<std::uint64_t>(s), Attention::eager);
    CHECK(layer_activation_bytes(shape, setup, {.dropout = true}) == doctest::Approx(s * b * h * (34 + 5 * a * s / h)));
  }
}

TEST_CASE("activations: flash attention keeps no s x s scores, Llama-style models have no dropout and a gated MLP") {
  auto shape = gpt(4096, 32, 32);
  const auto eager = layer_activation_bytes(shape, batch(1, 4096, Attention::eager));
  const auto flash = layer_activation_bytes(shape, batch(1, 4096, Attention::flash));
  CHECK(eager - flash == doctest::Approx(2.0 * 32 * 4096 * 4096 - 4.0 * 32 * 4096));
  // Llama-2-7B: h 4096, I 11008, gated; no dropout: attention 10sbh, MLP 2sbh + 8sbI, norms 4sbh.
  shape.intermediate = 11008;
  shape.gated_mlp = true;
  const double s = 4096;
  CHECK(layer_activation_bytes(shape, batch(1, 4096, Attention::flash)) ==
        doctest::Approx(10 * s * 4096 + 4 * 32 * s + 2 * s * 4096 + 8 * s * 11008 + 4 * s * 4096));
  // Grouped-query attention: K and V are the kv heads' width (8 of 32 heads: 1024).
  auto gqa = shape;
  gqa.kv_heads = 8;
  CHECK(layer_activation_bytes(shape, batch(1, 4096, Attention::flash)) - layer_activation_bytes(gqa, batch(1, 4096, Attention::flash)) ==
        doctest::Approx(4 * s * (4096 - 1024)));
}

TEST_CASE("activations: gradient checkpointing keeps each layer's input and recomputes one layer, unknown dimensions say so") {
  auto shape = gpt(4096, 32, 32);
  const auto setup = batch(2, 2048, Attention::flash);
  auto activations = activations_per_gpu(shape, setup);
  REQUIRE(activations);
  const double per_layer = activations->per_layer;
  const double output = activations->output_layer.bytes;
  CHECK(output == doctest::Approx(2.0 * 2048 * 2 * 4096 + 6.0 * 2048 * 2 * 51200));
  CHECK(activations->without_checkpointing.bytes == doctest::Approx(32 * per_layer + output));
  CHECK(activations->with_checkpointing.bytes == doctest::Approx(32 * 2.0 * 2048 * 2 * 4096 + per_layer + output));
  CHECK(activations->with_checkpointing.bytes < activations->without_checkpointing.bytes / 5);
  ModelShape bare;
  bare.parameters = 7'000'000'000;
  auto unknown = activations_per_gpu(bare, setup);
  REQUIRE_FALSE(unknown);
  CHECK(unknown.missing().detail.find("--model DIR") != std::string::npos);
}
