#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "parse/weights/safetensors_header.h"
#include "unit/parse/weights/safetensors_fixtures.h"

using namespace ftdiag;
using namespace ftdiag::parse;
using namespace ftdiag::parse::testing;

namespace {

SafetensorsHeader parsed(std::string_view header, std::optional<std::uint64_t> data_bytes = std::nullopt) {
  auto result = parse_safetensors_header(header, data_bytes);
  if (!result) FAIL(result.missing().detail);
  return result.value();
}

std::string header_refused(std::string_view header, std::optional<std::uint64_t> data_bytes = std::nullopt) {
  auto result = parse_safetensors_header(header, data_bytes);
  REQUIRE_FALSE(result);
  CHECK(result.missing().reason == MissingReason::unparseable);
  for (char c : result.missing().detail) CHECK((c >= 0x20 && c < 0x7f));
  return result.missing().detail;
}

bool lists(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("safetensors_header: a file's start as the library writes it") {
  const std::vector<TensorSpec> tensors = {
      {"model.embed_tokens.weight", "BF16", {32, 16}},
      {"model.norm.weight", "F32", {16}},
      {"step", "I64", {}},
  };
  const std::string start = file_start(tensors);
  CHECK(start.size() % 8 == 0);  // padded with spaces
  const std::uint64_t file_size = start.size() + 32 * 16 * 2 + 16 * 4 + 8;
  auto header = parse_safetensors_start(start, file_size);
  REQUIRE(header);
  CHECK(header->metadata.at("format") == "pt");
  CHECK(header->data_bytes == 32 * 16 * 2 + 16 * 4 + 8);
  CHECK(header->unknown_dtype_tensors == 0);
  REQUIRE(header->tensors.size() == 3);
  // Ordered by place in the data, not by name.
  CHECK(header->tensors[0] == SafetensorsTensor{"model.embed_tokens.weight", "BF16", {32, 16}, 512, 0, 1024});
  CHECK(header->tensors[1].name == "model.norm.weight");
  CHECK(header->tensors[2].name == "step");
  CHECK(header->tensors[2].elements == 1);  // a scalar
  CHECK(header->tensors[2].shape.empty());
  // Without the file's size, the data section is not checked.
  CHECK(parse_safetensors_start(start, std::nullopt));
}

TEST_CASE("safetensors_header: the 8 length bytes") {
  CHECK(*parse_safetensors_length(length_prefix(4096), std::nullopt) == 4096);
  CHECK(*parse_safetensors_length(length_prefix(kSafetensorsMaxHeaderBytes), std::nullopt) == kSafetensorsMaxHeaderBytes);
  CHECK(lists(parse_safetensors_length("\x10\0\0", std::nullopt).missing().detail, "shorter than the 8"));
  auto huge = parse_safetensors_length(length_prefix(kSafetensorsMaxHeaderBytes + 1), std::nullopt);
  REQUIRE_FALSE(huge);
  CHECK(huge.missing().reason == MissingReason::unparseable);
  CHECK(lists(huge.missing().detail, "over the format's limit"));
  // A text file's first bytes read as a length: far over the limit.
  CHECK_FALSE(parse_safetensors_length("#!/usr/bin/env python3", std::nullopt));
  CHECK(lists(parse_safetensors_length(length_prefix(1), std::nullopt).missing().detail, "cannot hold"));
  auto cut = parse_safetensors_length(length_prefix(4096), 1000);
  REQUIRE_FALSE(cut);
  CHECK(cut.missing().detail == "truncated inside its header: 1000 bytes, the header alone needs 4104");
}

TEST_CASE("safetensors_header: the start cut inside the header") {
  const std::string start = file_start({{"w", "F16", {4}}});
  auto cut = parse_safetensors_start(start.substr(0, start.size() - 3), std::nullopt);
  REQUIRE_FALSE(cut);
  CHECK(lists(cut.missing().detail, "truncated inside its header"));
}

TEST_CASE("safetensors_header: the data section checked against the file") {
  const std::string header = header_json({{"a", "F16", {2, 3}}, {"b", "U8", {5}}});
  CHECK(parsed(header, 17).data_bytes == 17);
  CHECK(header_refused(header, 16) == "truncated: its tensors need 17 bytes after the header, the file holds 16");
  CHECK(lists(header_refused(header, 20), "3 bytes follow the last tensor's data"));
  CHECK(parsed("{}", 0).tensors.empty());  // no tensors at all is a valid file
}

TEST_CASE("safetensors_header: JSON that is not a header") {
  CHECK(lists(header_refused("{\"a\": "), "not JSON (at byte"));
  CHECK(lists(header_refused("{} x"), "not JSON"));
  CHECK(header_refused("[1, 2]") == "its header is not a JSON object");
  CHECK(header_refused(R"({"w": 5})") == "tensor \"w\" is not an object");
  CHECK(header_refused(R"({"w": {"shape": [1], "data_offsets": [0, 2]}})") == "tensor \"w\" has no dtype");
  CHECK(header_refused(R"({"w": {"dtype": "F16", "data_offsets": [0, 2]}})") == "tensor \"w\" has no shape");
  CHECK(header_refused(R"({"w": {"dtype": "F16", "shape": [1], "data_offsets": [0]}})") ==
        "tensor \"w\" has no data_offsets [begin, end]");
  CHECK(header_refused(R"({"w": {"dtype": "F16", "shape": [-1], "data_offsets": [0, 2]}})") ==
        "tensor \"w\"'s shape is not whole numbers");
  CHECK(header_refused(R"({"w": {"dtype": "F16", "shape": [1.5], "data_offsets": [0, 2]}})") ==
        "tensor \"w\"'s shape is not whole numbers");
  CHECK(header_refused(R"({"w": {"dtype": "F16", "shape": [1], "data_offsets": [2, 0]}})") ==
        "tensor \"w\"'s data_offsets end before they begin");
  CHECK(header_refused(R"({"__metadata__": {"format": 1}})") == "its __metadata__ \"format\" is not a string");
  CHECK(header_refused(R"({"__metadata__": ["pt"]})") == "its __metadata__ is not an object");
  CHECK(parsed(R"({"__metadata__": null})").metadata.empty());
}

TEST_CASE("safetensors_header: offsets must match shape x dtype and tile the data") {
  CHECK(header_refused(R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 6]}})") ==
        "tensor \"w\": shape [2] of F32 needs 8 bytes, its data_offsets span 6");
  CHECK(header_refused(R"({"a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]},
                    "b": {"dtype": "U8", "shape": [4], "data_offsets": [6, 10]}})") ==
        "tensor \"b\" starts at byte 6 of the data, but the tensors before it end at byte 4: a gap");
  CHECK(header_refused(R"({"a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]},
                    "b": {"dtype": "U8", "shape": [4], "data_offsets": [2, 6]}})") ==
        "tensor \"b\" starts at byte 2 of the data, inside the tensor before it, which ends at byte 4");
  CHECK(lists(header_refused(R"({"a": {"dtype": "U8", "shape": [4], "data_offsets": [8, 12]}})"), "end at byte 0: a gap"));
  // A repeated name keeps the last entry, so the first one's bytes are a gap.
  CHECK(lists(header_refused(R"({"a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]},
                             "a": {"dtype": "U8", "shape": [4], "data_offsets": [4, 8]}})"),
                 "gap"));
  CHECK(lists(header_refused(R"({"w": {"dtype": "U8", "shape": [4294967296, 4294967296], "data_offsets": [0, 0]}})"),
                 "overflows"));
  CHECK(lists(header_refused(R"({"w": {"dtype": "F32", "shape": [4294967296, 1073741824], "data_offsets": [0, 0]}})"),
                 "overflows"));
}

TEST_CASE("safetensors_header: sub-byte and unknown dtypes") {
  CHECK(safetensors_dtype_bits("BF16") == 16);
  CHECK(safetensors_dtype_bits("F8_E4M3") == 8);
  CHECK(safetensors_dtype_bits("F4") == 4);
  CHECK(safetensors_dtype_bits("bf16") == 0);  // names are case-sensitive, as the library's are
  CHECK(parsed(R"({"w": {"dtype": "F4", "shape": [6], "data_offsets": [0, 3]}})").tensors[0].elements == 6);
  CHECK(header_refused(R"({"w": {"dtype": "F4", "shape": [3], "data_offsets": [0, 2]}})") ==
        "tensor \"w\": 3 elements of F4 do not fill whole bytes");
  // A dtype newer than this reader: accepted and counted, its size unchecked.
  auto header = parsed(R"({"w": {"dtype": "F2_E1M0", "shape": [10], "data_offsets": [0, 3]},
                           "v": {"dtype": "U8", "shape": [2], "data_offsets": [3, 5]}})",
                       5);
  CHECK(header.unknown_dtype_tensors == 1);
  CHECK(header.tensors[0].elements == 10);
  CHECK(header.data_bytes == 5);
}

TEST_CASE("safetensors_header: hostile input") {
  // Nesting is refused before a document is built.
  CHECK(header_refused(std::string(200000, '[')) == "its header nests deeper than a safetensors header does");
  CHECK(header_refused(R"({"w": {"dtype": "U8", "shape": [[1]], "data_offsets": [0, 1]}})") ==
        "its header nests deeper than a safetensors header does");
  // Names reach the detail printable and bounded.
  const std::string detail = header_refused("{\"\\u0001bad\xc3\xa9" + std::string(500, 'x') + "\": 5}");
  CHECK(detail.size() < 200);
  CHECK(detail.starts_with("tensor \"?bad??xxx"));
  // Invalid UTF-8 is not JSON.
  CHECK(lists(header_refused("{\"\xff\": 5}"), "not JSON"));
}
