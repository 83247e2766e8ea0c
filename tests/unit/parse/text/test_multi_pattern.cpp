// Many patterns searched in one pass (parse/text/multi_pattern.h): which pattern
// matched where, line anchors, one report per run of ends, and a pattern
// Hyperscan cannot take named in the error.
#include <doctest/doctest.h>

#include <string>
#include <variant>
#include <vector>

#include "parse/text/multi_pattern.h"

using ftdiag::parse::MultiPattern;

namespace {

std::vector<MultiPattern::Match> scan(const std::vector<std::string>& patterns, std::string_view text) {
  auto compiled = MultiPattern::compile(patterns);
  REQUIRE(std::holds_alternative<MultiPattern>(compiled));
  auto& multi = std::get<MultiPattern>(compiled);
  auto scratch = multi.make_scratch();
  std::vector<MultiPattern::Match> matches;
  CHECK(multi.scan(text, scratch, matches));
  return matches;
}

}  // namespace

TEST_CASE("multi pattern: every pattern's matches, ordered by end") {
  const std::string text = "alpha beta\ngamma alpha\n";
  CHECK(scan({"alpha", "gamma"}, text) ==
        std::vector<MultiPattern::Match>{{0, 5}, {1, 16}, {0, 22}});
  CHECK(scan({"^alpha", "alpha$"}, text) == std::vector<MultiPattern::Match>{{0, 5}, {1, 22}});
  CHECK(scan({"zeta"}, text).empty());
}

TEST_CASE("multi pattern: a run of ends is reported once per line") {
  // "beta.*" ends at every byte after "beta" up to the line end.
  const std::string text = "beta one\nbeta two and more\n";
  CHECK(scan({"beta.*"}, text) == std::vector<MultiPattern::Match>{{0, 4}, {0, 13}});
  // "\s+" may run over a line end: the part in the next line is reported there.
  CHECK(scan({"x\\s+"}, "x  \n  y\n") == std::vector<MultiPattern::Match>{{0, 2}, {0, 5}});
}

TEST_CASE("multi pattern: a pattern it cannot compile is named") {
  auto compiled = MultiPattern::compile({"fine", "(?U)lazy+"});
  REQUIRE(std::holds_alternative<std::string>(compiled));
  CHECK(std::get<std::string>(compiled).rfind("pattern 1 ((?U)lazy+): ", 0) == 0);
  CHECK(std::holds_alternative<std::string>(MultiPattern::compile({"a*"})));  // would match everywhere
}

TEST_CASE("multi pattern: no patterns find nothing") {
  CHECK(scan({}, "anything\n").empty());
}
