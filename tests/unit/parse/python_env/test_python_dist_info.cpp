// Distribution metadata: names normalised as pip compares them, versions
// from the METADATA header only, and folder names of both formats.
#include <doctest/doctest.h>

#include <string>

#include "parse/python_env/dist_info.h"

using namespace ftdiag::parse;

TEST_CASE("python dist-info: names are normalised like pip's") {
  CHECK(normalize_distribution_name("torch") == "torch");
  CHECK(normalize_distribution_name("Flash_Attn") == "flash-attn");
  CHECK(normalize_distribution_name("nvidia_cuda_runtime_cu12") == "nvidia-cuda-runtime-cu12");
  CHECK(normalize_distribution_name("transformer.engine") == "transformer-engine");
  CHECK(normalize_distribution_name("a__-.b") == "a-b");
  CHECK(normalize_distribution_name("_x_") == "x");
  CHECK(normalize_distribution_name("").empty());
}

TEST_CASE("python dist-info: Name and Version come from the header, never the description") {
  const auto metadata = parse_distribution_metadata(
      "Metadata-Version: 2.1\r\n"
      "name: torch\r\n"
      "Summary: Tensors\r\n"
      "License: BSD-3\r\n"
      "  Version: 9.9.9 (a continued field, not a header)\r\n"
      "VERSION:   2.7.0+cu128  \r\n"
      "Version: 1.0 (a second Version is ignored)\r\n"
      "\r\n"
      "Name: not-this\n");
  REQUIRE(metadata);
  CHECK(metadata->name == "torch");
  CHECK(metadata->version == "2.7.0+cu128");
}

TEST_CASE("python dist-info: a header without Name or Version is unparseable") {
  CHECK_FALSE(parse_distribution_metadata(""));
  CHECK_FALSE(parse_distribution_metadata("Name: torch\n"));
  CHECK_FALSE(parse_distribution_metadata("Version: 1.0\n"));
  CHECK_FALSE(parse_distribution_metadata("\nName: torch\nVersion: 1.0\n"));  // all body
  CHECK_FALSE(parse_distribution_metadata("Name:\nVersion: 1.0\n"));
  CHECK_FALSE(parse_distribution_metadata(std::string("\0\xff\xfe:Name", 8)));
}

TEST_CASE("python dist-info: folder names of wheels and eggs") {
  auto wheel = parse_distribution_entry("torch-2.7.0+cu128.dist-info");
  REQUIRE(wheel);
  CHECK(wheel->kind == DistributionEntry::Kind::dist_info);
  CHECK(wheel->name == "torch");
  CHECK(wheel->version == "2.7.0+cu128");

  auto nvidia = parse_distribution_entry("nvidia_cuda_runtime_cu12-12.8.57.dist-info");
  REQUIRE(nvidia);
  CHECK(nvidia->name == "nvidia-cuda-runtime-cu12");
  CHECK(nvidia->version == "12.8.57");

  auto egg = parse_distribution_entry("numpy-1.24.2-py3.11.egg-info");
  REQUIRE(egg);
  CHECK(egg->kind == DistributionEntry::Kind::egg_info);
  CHECK(egg->version == "1.24.2");

  auto unversioned = parse_distribution_entry("cryptography.egg-info");
  REQUIRE(unversioned);
  CHECK(unversioned->name == "cryptography");
  CHECK(unversioned->version.empty());

  CHECK_FALSE(parse_distribution_entry("torch"));
  CHECK_FALSE(parse_distribution_entry(".dist-info"));
  CHECK_FALSE(parse_distribution_entry("-1.0.dist-info"));
  CHECK_FALSE(parse_distribution_entry("torch-2.7.0.dist-info.bak"));
}
