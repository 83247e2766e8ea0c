// Load errors inside `when`: facts and comparisons are checked against the
// fact registry, regular expressions are compiled with bounds.
#include <doctest/doctest.h>

#include <string>

#include "expect_load_error.h"
#include "rule_text.h"

using namespace ftdiag::rules;
using namespace ftdiag::rules::testing;

namespace {


std::string matches_pattern(const std::string& pattern) {
  return R"({"fact": "console.tail", "matches": ")" + pattern + "\"}";
}

}  // namespace

TEST_CASE("rule loader: an unknown fact is an error at the fact's name") {
  const auto l = with_when(R"({"all": [{"fact": "death.signal", "eq": 9}, {"fact": "cgroup.peek", "gt": 0}]})");
  expect_load_error(l.set, l.text, "/rules/0/when/all/1/fact", "\"cgroup.peek\"", "unknown fact \"cgroup.peek\"");
}

TEST_CASE("rule loader: a bytes or integer fact compared with a string") {
  SUBCASE("gt on bytes") {
    const auto l = with_when(R"({"fact": "cgroup.limit_bytes", "gt": "1G"})");
    expect_load_error(l.set, l.text, "/rules/0/when/gt", "\"1G\"", "cannot compare it with \"1G\"");
  }
  SUBCASE("eq on an integer") {
    const auto l = with_when(R"({"fact": "death.signal", "eq": "SIGKILL"})");
    expect_load_error(l.set, l.text, "/rules/0/when/eq", "\"SIGKILL\"", "cannot compare");
  }
  SUBCASE("one bad item of in") {
    const auto l = with_when(R"({"fact": "death.signal", "in": [9, "KILL"]})");
    expect_load_error(l.set, l.text, "/rules/0/when/in/1", "\"KILL\"", "cannot compare");
  }
  SUBCASE("a boolean fact compared with a number") {
    const auto l = with_when(R"({"fact": "death.is_job", "eq": 1})");
    expect_load_error(l.set, l.text, "/rules/0/when/eq", "1}", "is of type boolean");
  }
  SUBCASE("lt on a string fact") {
    const auto l = with_when(R"({"fact": "phase.at_death", "lt": 3})");
    expect_load_error(l.set, l.text, "/rules/0/when/lt", "3}", "needs a number");
  }
}

TEST_CASE("rule loader: matches on a non-string fact") {
  const auto l = with_when(R"({"fact": "death.signal", "matches": "9"})");
  expect_load_error(l.set, l.text, "/rules/0/when/matches", "\"9\"", "\"matches\" needs a string fact");
}

TEST_CASE("rule loader: a bad regular expression") {
  const auto l = with_when(matches_pattern("(unclosed"));
  expect_load_error(l.set, l.text, "/rules/0/when/matches", "\"(unclosed\"", "bad or too large regular expression");
}

TEST_CASE("rule loader: a pattern longer than kMaxPatternLength") {
  const auto too_long = with_when(matches_pattern(std::string(kMaxPatternLength + 1, 'a')));
  expect_load_error(too_long.set, too_long.text, "/rules/0/when/matches", "\"aaaa", "pattern longer than 4096");
  const auto at_limit = with_when(matches_pattern(std::string(kMaxPatternLength, 'a')));
  CHECK(at_limit.set.ok());
  CHECK(at_limit.set.rules.size() == 1);
}

TEST_CASE("rule loader: patterns RE2 refuses for size or memory") {
  SUBCASE("nested repetition") {
    const auto l = with_when(matches_pattern("(a{1000}){1000}"));
    expect_load_error(l.set, l.text, "/rules/0/when/matches", "\"(a{", "bad or too large regular expression");
  }
  SUBCASE("a program over the memory budget") {
    const auto l = with_when(matches_pattern(R"(\\pL{1000})"));
    expect_load_error(l.set, l.text, "/rules/0/when/matches", R"("\\pL)", "too large");
  }
}

TEST_CASE("rule loader: malformed comparisons and conditions") {
  SUBCASE("an operator typo") {
    const auto l = with_when(R"({"fact": "death.signal", "eqq": 9})");
    expect_load_error(l.set, l.text, "/rules/0/when/eqq", "9}", "unknown operator \"eqq\"");
  }
  SUBCASE("two operators") {
    const auto l = with_when(R"({"fact": "death.signal", "eq": 9, "ne": 15})");
    expect_load_error(l.set, l.text, "/rules/0/when", "{\"fact\"", "exactly one operator");
  }
  SUBCASE("no operator") {
    const auto l = with_when(R"({"fact": "death.signal"})");
    expect_load_error(l.set, l.text, "/rules/0/when", "{\"fact\"", "needs an operator");
  }
  SUBCASE("exists takes a boolean") {
    const auto l = with_when(R"({"fact": "death.signal", "exists": 1})");
    expect_load_error(l.set, l.text, "/rules/0/when/exists", "1}", "true or false");
  }
  SUBCASE("in takes a non-empty array") {
    const auto l = with_when(R"({"fact": "death.signal", "in": []})");
    expect_load_error(l.set, l.text, "/rules/0/when/in", "[]", "non-empty array");
  }
  SUBCASE("an unknown combinator") {
    const auto l = with_when(R"({"either": [{"fact": "death.signal", "eq": 9}]})");
    expect_load_error(l.set, l.text, "/rules/0/when/either", "[{", "unknown condition \"either\"");
  }
  SUBCASE("all with an empty array") {
    const auto l = with_when(R"({"all": []})");
    expect_load_error(l.set, l.text, "/rules/0/when/all", "[]", "non-empty array");
  }
  SUBCASE("a condition that is not an object") {
    const auto l = with_when(R"({"not": 9})");
    expect_load_error(l.set, l.text, "/rules/0/when/not", "9}", "a condition is an object");
  }
  SUBCASE("fact is not a string") {
    const auto l = with_when(R"({"fact": 9, "eq": 9})");
    expect_load_error(l.set, l.text, "/rules/0/when/fact", "9,", "must be a string");
  }
}

TEST_CASE("rule loader: numbers of either kind compare with integer and number facts") {
  const auto l = with_when(R"({"all": [{"fact": "death.signal", "eq": 9.0}, {"fact": "cgroup.peak_ratio", "gte": 1}]})");
  CHECK(l.set.ok());
  CHECK(l.set.rules.size() == 1);
}
