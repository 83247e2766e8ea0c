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

TEST_CASE("activations: Korthikanti et al.'s Table 2, tensor and sequence parallelism, selective and full recomputation") {
  // GPT-3 22B, 175B, 530B and 1T as the paper's Table 3 trains them: t = 8, s = 2048, b = 1.
  struct Model {
    std::uint64_t heads, hidden, layers;
  };
  for (const auto m : {Model{64, 6144, 48}, Model{96, 12288, 96}, Model{128, 20480, 105}, Model{160, 25600, 128}}) {
    CAPTURE(m.hidden);
    const auto shape = gpt(m.hidden, m.heads, m.layers);
    const double s = 2048, b = 1, h = static_cast<double>(m.hidden), a = static_cast<double>(m.heads), t = 8;
    auto setup = batch(1, 2048, Attention::eager);
    setup.dropout = true;
    CHECK(layer_activation_bytes(shape, setup) == doctest::Approx(s * b * h * (34 + 5 * a * s / h)));
    setup.tensor_parallel = 8;
    CHECK(layer_activation_bytes(shape, setup) == doctest::Approx(s * b * h * (10 + 24 / t + 5 * a * s / (h * t))));
    setup.sequence_parallel = true;
    CHECK(layer_activation_bytes(shape, setup) == doctest::Approx(s * b * h / t * (34 + 5 * a * s / h)));
    setup.selective_recompute = true;
    CHECK(layer_activation_bytes(shape, setup) == doctest::Approx(s * b * h / t * 34));
    setup.sequence_parallel = false;
    CHECK(layer_activation_bytes(shape, setup) == doctest::Approx(s * b * h * (10 + 24 / t)));
    // Full recomputation keeps each layer's input: the paper's 2sbhL (2sbhL/t with sequence parallelism).
    auto full = batch(1, 2048, Attention::eager);
    full.gradient_checkpointing = true;
    auto kept = activations_per_gpu(shape, full, {.dropout = true});
    REQUIRE(kept);
    CHECK(kept->layer_inputs == doctest::Approx(2 * s * b * h * static_cast<double>(m.layers)));
    full.tensor_parallel = 8;
    full.sequence_parallel = true;
    kept = activations_per_gpu(shape, full, {.dropout = true});
    REQUIRE(kept);
    CHECK(kept->layer_inputs == doctest::Approx(2 * s * b * h * static_cast<double>(m.layers) / t));
  }
}

TEST_CASE("activations: fp32 training keeps 4-byte elements (masks stay 1 byte), a config with dropout keeps its masks") {
  const auto shape = gpt(4096, 32, 2);
  auto half = batch(1, 2048, Attention::eager);
  auto full = half;
  full.precision = Precision::fp32;
  const double s = 2048, h = 4096, a = 32;
  // Without dropout every element doubles: sbh(30) + 2as^2b at 2 bytes becomes twice that.
  CHECK(layer_activation_bytes(shape, full) == doctest::Approx(2 * layer_activation_bytes(shape, half)));
  // With dropout the 1-byte masks (2sbh and as^2b) do not double.
  half.dropout = full.dropout = true;
  const double masks = 2 * s * h + a * s * s;
  CHECK(layer_activation_bytes(shape, full) == doctest::Approx(2 * (layer_activation_bytes(shape, half) - masks) + masks));
  // The model's own config says it trains with dropout.
  auto with_dropout = shape;
  with_dropout.dropout = true;
  CHECK(layer_activation_bytes(with_dropout, batch(1, 2048, Attention::eager)) ==
        doctest::Approx(s * h * (34 + 5 * a * s / h)));
}
