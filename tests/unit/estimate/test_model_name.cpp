#include <doctest/doctest.h>

#include "estimate/model_name.h"

using ftdiag::estimate::parameters_from_model_name;

TEST_CASE("model name: the size a model's name states") {
  CHECK(parameters_from_model_name("meta-llama/Llama-2-7b-hf").value() == 7'000'000'000ULL);
  CHECK(parameters_from_model_name("Qwen/Qwen2.5-14B-Instruct").value() == 14'000'000'000ULL);
  CHECK(parameters_from_model_name("Qwen/Qwen2-1.5B").value() == 1'500'000'000ULL);
  CHECK(parameters_from_model_name("EleutherAI/pythia-160m").value() == 160'000'000ULL);
  CHECK(parameters_from_model_name("/models/llama-3-70b").value() == 70'000'000'000ULL);
  // Versions and other numbers are not sizes; MoE names do not state their total.
  CHECK_FALSE(parameters_from_model_name("gpt2"));
  CHECK_FALSE(parameters_from_model_name("mistralai/Mixtral-8x7B-v0.1"));
  CHECK_FALSE(parameters_from_model_name("model-7b-and-13b"));
  CHECK_FALSE(parameters_from_model_name("bert-base-uncased"));
  CHECK_FALSE(parameters_from_model_name(""));
}

#include "estimate/byte_size.h"

TEST_CASE("byte size: K, M, G, T count as free -g and docker -m do, KB, MB, GB, TB in powers of 1000") {
  using ftdiag::estimate::parse_byte_size;
  CHECK(parse_byte_size("64G").value() == 64ULL << 30);
  CHECK(parse_byte_size("64g").value() == 64ULL << 30);
  CHECK(parse_byte_size("64GB").value() == 64'000'000'000ULL);
  CHECK(parse_byte_size("64gib").value() == 64ULL << 30);
  CHECK(parse_byte_size("1.5T").value() == 3ULL << 39);
  CHECK(parse_byte_size("68719476736").value() == 68719476736ULL);
  CHECK(parse_byte_size("512 MiB").value() == 512ULL << 20);
  CHECK_FALSE(parse_byte_size("lots"));
  CHECK_FALSE(parse_byte_size("-5G"));
  CHECK_FALSE(parse_byte_size("64 parsecs"));
  CHECK_FALSE(parse_byte_size("1e30"));
  CHECK_FALSE(parse_byte_size(""));
}
