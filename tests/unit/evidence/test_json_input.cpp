// parse_json_input: the limits every whole-document JSON input gets.
#include <doctest/doctest.h>

#include <string>

#include "evidence/json_input.h"

using namespace ftdiag::evidence;

namespace {

JsonInputError error_of(const std::variant<nlohmann::json, JsonInputError>& parsed) {
  REQUIRE(std::holds_alternative<JsonInputError>(parsed));
  return std::get<JsonInputError>(parsed);
}

}  // namespace

TEST_CASE("json input: documents within the limits parse as nlohmann would") {
  auto parsed = parse_json_input(R"({"a": [1, 2.5, "x", {"b": null}], "c": true})");
  REQUIRE(std::holds_alternative<nlohmann::json>(parsed));
  CHECK(std::get<nlohmann::json>(parsed)["a"][1] == 2.5);
  // Exactly the limit is allowed; one more is not.
  const std::string at_limit = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  CHECK(std::holds_alternative<nlohmann::json>(parse_json_input(at_limit)));
  const std::string over = "[" + at_limit + "]";
  CHECK(error_of(parse_json_input(over)).message == "nested deeper than 256 levels");
}

TEST_CASE("json input: 100,000 levels are refused at the first level too deep, with its position") {
  const std::string deep = "{\"a\":\n  " + std::string(100000, '[') + std::string(100000, ']') + "}";
  const auto& error = error_of(parse_json_input(deep));
  CHECK(error.line == 2);
  CHECK(error.column == 3 + kMaxJsonDepth - 1);  // the 256th '[' is the 257th level (the object is the first)
  CHECK(error.describe().find("line 2, column") == 0);
}

TEST_CASE("json input: brackets inside strings and comments do not count") {
  const std::string in_string = "[\"" + std::string(1000, '[') + "\\\"[\"]";
  CHECK(std::holds_alternative<nlohmann::json>(parse_json_input(in_string)));
  const std::string in_comment = "// " + std::string(1000, '{') + "\n/* " + std::string(1000, '[') + " */ [1]";
  CHECK(std::holds_alternative<nlohmann::json>(parse_json_input(in_comment, {.allow_comments = true})));
  CHECK(std::holds_alternative<JsonInputError>(parse_json_input(in_comment)));  // comments not allowed by default
}

TEST_CASE("json input: numbers beyond a double are refused at their position") {
  const std::string text = "{\"rules\": [{\"when\": {\"s\": \"1e999\",\n \"eq\": 1e999}}]}";
  const auto& error = error_of(parse_json_input(text));
  CHECK(error.message.find("number out of range") == 0);
  CHECK(error.line == 2);  // not the string on line 1
  CHECK(error.column == 8);
  CHECK(error.describe() == "line 2, column 8: number out of range (not a finite double)");
  CHECK(error_of(parse_json_input("[-1e400]")).column == 2);
  CHECK(error_of(parse_json_input("/* 1E+99999 */ [1E+99999]", {.allow_comments = true})).column == 17);
  // Large but finite, and huge integers nlohmann keeps as doubles: fine.
  CHECK(std::holds_alternative<nlohmann::json>(parse_json_input("[1.7e308, 123456789012345678901234567890]")));
}

TEST_CASE("json input: malformed text says where") {
  const auto& error = error_of(parse_json_input("{\"a\": 1,\n \"b\": }"));
  CHECK(error.line == 2);
  CHECK(error.message.find("not valid JSON") == 0);
  CHECK_FALSE(std::holds_alternative<nlohmann::json>(parse_json_input("")));
  CHECK_FALSE(std::holds_alternative<nlohmann::json>(parse_json_input(std::string("\xff\xfe\0", 3))));
}
