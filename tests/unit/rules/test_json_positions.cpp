#include <doctest/doctest.h>

#include <string>

#include "rules/json_positions.h"
#include "rule_text.h"

using namespace ftdiag::rules;
using ftdiag::rules::testing::position_of;

namespace {

void check_at(const std::map<std::string, TextPosition>& index, const std::string& pointer, TextPosition want) {
  INFO("pointer: ", pointer);
  auto it = index.find(pointer);
  REQUIRE(it != index.end());
  CHECK(it->second.line == want.line);
  CHECK(it->second.column == want.column);
}

}  // namespace

TEST_CASE("json positions: nested objects and arrays by JSON pointer") {
  const std::string text =
      "{\n"
      "  \"rules\": [\n"
      "    {\"id\": \"a\", \"when\": {\"all\": [1, {\"fact\": \"x\"}]}},\n"
      "    [true, null]\n"
      "  ]\n"
      "}\n";
  const auto index = index_json_positions(text);
  check_at(index, "", {1, 1});
  check_at(index, "/rules", {2, 12});
  check_at(index, "/rules/0", {3, 5});
  check_at(index, "/rules/0/id", position_of(text, "\"a\""));
  check_at(index, "/rules/0/when", position_of(text, "{\"all\""));
  check_at(index, "/rules/0/when/all", position_of(text, "[1,"));
  check_at(index, "/rules/0/when/all/0", position_of(text, "1,"));
  check_at(index, "/rules/0/when/all/1/fact", position_of(text, "\"x\""));
  check_at(index, "/rules/1/0", position_of(text, "true"));
  check_at(index, "/rules/1/1", position_of(text, "null"));
  CHECK(index.count("/rules/2") == 0);
}

TEST_CASE("json positions: comments of both kinds are skipped and counted as lines") {
  const std::string text =
      "// header comment with \"quotes\" and { braces [\n"
      "{\n"
      "  /* a block comment\n"
      "     spanning lines with \"rules\": [ */\n"
      "  \"rules\": /* inline */ [ // trailing\n"
      "    42 /* after a value */, \"s\"\n"
      "  ]\n"
      "}\n";
  const auto index = index_json_positions(text);
  check_at(index, "", {2, 1});
  check_at(index, "/rules", position_of(text, "[ //"));
  check_at(index, "/rules/0", {6, 5});
  check_at(index, "/rules/1", position_of(text, "\"s\""));
}

TEST_CASE("json positions: keys with / and ~ are escaped, escaped quotes do not end strings") {
  const std::string text = R"({"a/b": 1, "m~n": 2, "q\"k": {"x": "}\"]"}, "t": 3})";
  const auto index = index_json_positions(text);
  check_at(index, "/a~1b", position_of(text, "1,"));
  check_at(index, "/m~0n", position_of(text, "2,"));
  check_at(index, "/q\"k/x", position_of(text, R"("}\"]")"));
  check_at(index, "/t", position_of(text, "3}"));
  CHECK(index.count("/a/b") == 0);
}

TEST_CASE("json positions: escape_pointer_token follows RFC 6901") {
  CHECK(escape_pointer_token("a/b") == "a~1b");
  CHECK(escape_pointer_token("a~b") == "a~0b");
  CHECK(escape_pointer_token("~/") == "~0~1");
  CHECK(escape_pointer_token("plain") == "plain");
  CHECK(escape_pointer_token("") == "");
}

TEST_CASE("json positions: truncated input keeps what was indexed") {
  const std::string text = "{\"rules\": [{\"id\": \"a\", \"when\": ";
  const auto index = index_json_positions(text);
  check_at(index, "", {1, 1});
  check_at(index, "/rules", position_of(text, "[{"));
  check_at(index, "/rules/0/id", position_of(text, "\"a\""));
  CHECK(index.count("/rules/0/when") == 0);
}

TEST_CASE("json positions: malformed input stops quietly") {
  SUBCASE("missing comma: the first member is kept, the rest is not guessed") {
    const std::string text = R"({"a": 1 "b": 2})";
    const auto index = index_json_positions(text);
    check_at(index, "/a", {1, 7});
    CHECK(index.count("/b") == 0);
  }
  SUBCASE("a key that is not a string") {
    const auto index = index_json_positions("{a: 1}");
    CHECK(index.size() == 1);
    CHECK(index.count("") == 1);
  }
  SUBCASE("an empty array element") {
    const auto index = index_json_positions("[1, , 3]");
    check_at(index, "/0", {1, 2});
    CHECK(index.count("/2") == 0);
  }
  SUBCASE("unterminated string and comment, empty text, binary bytes") {
    CHECK(index_json_positions("{\"abc").size() == 1);
    CHECK(index_json_positions("[1, /* never closed").size() == 2);
    CHECK(index_json_positions("").empty());
    CHECK(index_json_positions("   // only a comment").empty());
    const std::string binary("\x00\xff{\"\x01\":[\x80", 9);
    CHECK(index_json_positions(binary).size() == 1);
  }
}

TEST_CASE("json positions: deep nesting is bounded and does not exhaust the stack") {
  const std::size_t depth = 1'000'000;
  const std::string text = std::string(depth, '[') + "1" + std::string(depth, ']');
  const auto index = index_json_positions(text);
  check_at(index, "", {1, 1});
  check_at(index, "/0/0/0", {1, 4});
  CHECK(index.size() < 1000);
}
