// One assertion for the rule loader tests: the file was refused with an error
// at this JSON pointer, placed at the line:column where `needle` starts in
// the text, with a message that says what is wrong.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "rule_text.h"

namespace ftdiag::rules::testing {

inline const LoadError* find_error(const RuleSet& set, std::string_view pointer) {
  for (const auto& e : set.errors) {
    if (e.pointer == pointer) return &e;
  }
  return nullptr;
}

inline void expect_load_error(const RuleSet& set, std::string_view text, std::string_view pointer, std::string_view needle,
                              std::string_view message_part) {
  INFO("errors: ", set.errors.size(), ", first: ", (set.errors.empty() ? std::string() : set.errors.front().describe()));
  const LoadError* e = find_error(set, pointer);
  REQUIRE_MESSAGE(e != nullptr, "no error at ", pointer);
  const TextPosition want = position_of(text, needle);
  REQUIRE_MESSAGE(want.line > 0, "the test's needle is not in the text: ", needle);
  CHECK(e->file == "rules/test.json");
  CHECK(e->position.line == want.line);
  CHECK(e->position.column == want.column);
  CHECK_MESSAGE(e->message.find(message_part) != std::string::npos, e->message);
  CHECK(set.rules.empty());
}

}  // namespace ftdiag::rules::testing
