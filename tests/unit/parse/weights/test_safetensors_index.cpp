#include <doctest/doctest.h>

#include <string>

#include "parse/weights/safetensors_index.h"

using namespace ftdiag::parse;

TEST_CASE("safetensors_index: the weight_map grouped by shard") {
  auto index = parse_safetensors_index(
      R"({"metadata": {"total_size": 10}, "weight_map": {"a": "s1.safetensors", "b": "s2.safetensors", "c": "s1.safetensors"}})");
  REQUIRE(index);
  CHECK(*index == SafetensorsIndex{{"s1.safetensors", {"a", "c"}}, {"s2.safetensors", {"b"}}});
  CHECK(parse_safetensors_index("{").missing().detail == "not JSON");
  CHECK(parse_safetensors_index(R"({"weight_map": {}})").missing().detail == "no \"weight_map\" of tensors to shards");
  CHECK(parse_safetensors_index(R"({"weight_map": {"a": 1}})").missing().detail == "the shard of \"a\" is not a file name");
  CHECK_FALSE(parse_safetensors_index(R"({"weight_map": {"a": ".."}})"));
  CHECK(parse_safetensors_index(std::string(100000, '[')).missing().detail == "nested deeper than an index is");
  // Brackets inside names are not nesting.
  CHECK(parse_safetensors_index(R"({"weight_map": {"[[[[[[[[[[[[[[[[[[[[\"{{{{{{{{{{{{{{{{{{{{{": "s.safetensors"}})"));
}
