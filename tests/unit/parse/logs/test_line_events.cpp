// The line-event table itself: loading the project's table, refusing broken
// ones with a position, and the pieces match() is built from (signal names,
// the literals a pattern requires, the literal prefilter).
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "line_event_testing.h"
#include "parse/logs/line_event_prefilter.h"
#include "parse/logs/signal_text.h"
#include "parse/text/json_text_positions.h"
#include "parse/text/regex_literals.h"

using namespace ftdiag::parse;
using ftdiag::parse::testing::project_file;
using ftdiag::parse::testing::project_table;
using ftdiag::parse::testing::read_whole;

namespace {

// The declaration of the test tables' kinds "k", "first" and "second", placed
// after the events so that positions in them stay where the tests look.
constexpr std::string_view kTestKinds =
    R"(, "kinds": [{"kind": "k", "means": "failure", "fields": ["pid", "signal", "exit_code", "rank", "why"], "what": "a test"},
             {"kind": "first", "means": "failure", "fields": ["pid", "signal"], "what": "a test"},
             {"kind": "second", "means": "teardown", "fields": ["signal", "why"], "what": "a test"}])";

// A table of one entry, in the file's own shape.
std::string one_entry(const std::string& fields) {
  return "{\"events\": [\n  {" + fields + "}\n]" + std::string(kTestKinds) + "}\n";
}

std::string refusal(const std::string& text) {
  auto table = LineEventTable::parse(text, "test.json");
  REQUIRE_MESSAGE(std::holds_alternative<std::string>(table), "accepted: " << text);
  return std::get<std::string>(table);
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// "test.json:LINE:COLUMN" of the first occurrence of `needle` in `text`, by
// plain text search: independent of the position index under test.
std::string where(const std::string& text, std::string_view needle) {
  const auto at = text.find(needle);
  REQUIRE(at != std::string::npos);
  const auto line_start = text.rfind('\n', at);
  const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
  const auto column = line_start == std::string::npos ? at + 1 : at - line_start;
  return "test.json:" + std::to_string(line) + ":" + std::to_string(column) + ": ";
}

// The refusal of a one-entry table, checked to point at `needle`.
void check_refused_at(const std::string& fields, std::string_view needle, std::string_view message) {
  const auto text = one_entry(fields);
  const auto error = refusal(text);
  CHECK_MESSAGE(contains(error, where(text, needle) + std::string(message)), error);
}

}  // namespace

TEST_CASE("line events: the project's table loads and docs/log-events.md documents every kind") {
  const auto& table = project_table();
  CHECK(table.patterns().size() >= 40);
  const auto docs = read_whole(project_file("docs/log-events.md"));
  for (const auto& kind : table.kinds()) CHECK_MESSAGE(contains(docs, "`" + kind + "`"), kind << " is not in docs/log-events.md");
  for (const auto& required :
       {"launcher-teardown", "launcher-signalled", "rank-failed", "worker-died", "scheduler-oom", "scheduler-cancel",
        "scheduler-task-died", "scheduler-memory-kill", "container-oom", "eviction", "unit-oom", "oomd-kill",
        "earlyoom-kill", "shell-reported-death"}) {
    const auto kinds = table.kinds();
    CHECK_MESSAGE(std::find(kinds.begin(), kinds.end(), required) != kinds.end(), required);
  }
}

TEST_CASE("line events: the first matching entry wins, fixed fields are filled, untyped text stays visible") {
  auto loaded = LineEventTable::parse(R"j({"events": [
    {"kind": "first", "source": "test", "pattern": "boom (?P<pid>\\w+) (?P<signal>\\w+)", "literal": "boom "},
    {"kind": "second", "source": "test", "pattern": "boom", "literal": "boom", "signal": "SIGKILL",
     "details": {"why": "fixed"}}
  ])j" + std::string(kTestKinds) + "}", "order.json");
  REQUIRE(std::holds_alternative<LineEventTable>(loaded));
  const auto& table = std::get<LineEventTable>(loaded);
  const auto first = table.match("x boom 42 Killed");
  REQUIRE(first);
  CHECK(first->kind == "first");
  CHECK(first->pid == 42);
  CHECK(first->signal == 9);
  const auto untyped = table.match("boom abc Weird");
  REQUIRE(untyped);
  CHECK_FALSE(untyped->pid);
  CHECK(untyped->details == std::map<std::string, std::string>{{"pid", "abc"}, {"signal", "Weird"}});
  const auto second = table.match("a boom!");
  REQUIRE(second);
  CHECK(second->kind == "second");
  CHECK(second->means == "teardown");  // its kind's declaration
  CHECK(first->means == "failure");
  CHECK(second->signal == 9);
  CHECK(second->details.at("why") == "fixed");
  CHECK_FALSE(table.match("bo om"));
  CHECK_FALSE(table.match(""));
}

TEST_CASE("line events: malformed tables are refused with file:line:column") {
  SUBCASE("not JSON") {
    const auto error = refusal("{\"events\": [\n  {\"kind\": }\n]}");
    CHECK(contains(error, "test.json:2:"));
    CHECK(contains(error, "not valid JSON"));
  }
  SUBCASE("a bad regular expression") {
    check_refused_at(R"("kind": "k", "source": "s", "pattern": "unclosed (group", "literal": "unclosed")",
                     "\"unclosed (", "bad regular expression: missing )");
  }
  SUBCASE("an unknown field") {
    check_refused_at(R"("kind": "k", "source": "s", "pattern": "abcd", "literal": "abcd", "sginal": 9)", "9}",
                     "unknown field \"sginal\"");
  }
  SUBCASE("a missing literal") {
    check_refused_at(R"("kind": "k", "source": "s", "pattern": "abcd")", "{\"kind", "missing \"literal\"");
  }
  SUBCASE("a literal the pattern does not require") {
    for (const char* pattern : {"(abcd)", "abcd|efgh", "abc?d", "x[abcd]", "(?i)abcd", "a.bcd"}) {
      CAPTURE(pattern);
      check_refused_at(std::string(R"("kind": "k", "source": "s", "pattern": ")") + pattern + R"(", "literal": "abcd")",
                       "\"abcd\"}", "literal \"abcd\" is not text the pattern always requires");
    }
  }
  SUBCASE("a literal too short to filter") {
    CHECK(contains(refusal(one_entry(R"("kind": "k", "source": "s", "pattern": "abc", "literal": "abc")")),
                   "shorter than 4 bytes"));
  }
  SUBCASE("a named group of no known field or detail form") {
    check_refused_at(R"j("kind": "k", "source": "s", "pattern": "abcd (?P<Pid>\\d+)", "literal": "abcd")j", "\"abcd (",
                     "named group \"Pid\"");
  }
  SUBCASE("a signal both captured and fixed") {
    CHECK(contains(refusal(one_entry(R"j("kind": "k", "source": "s", "pattern": "abcd (?P<signal>\\d+)", "literal": "abcd", "signal": 9)j")),
                   "a (?P<signal>...) group and a fixed \"signal\""));
  }
  SUBCASE("a fixed signal that is none") {
    check_refused_at(R"("kind": "k", "source": "s", "pattern": "abcd", "literal": "abcd", "signal": "SIGNOPE")",
                     "\"SIGNOPE", "\"signal\" must be");
  }
  SUBCASE("a kind that is not lower case with dashes") {
    check_refused_at(R"("kind": "Rank_Failed", "source": "s", "pattern": "abcd", "literal": "abcd")", "\"Rank_",
                     "kind \"Rank_Failed\"");
  }
  SUBCASE("an entry of a kind never declared") {
    check_refused_at(R"("kind": "rank-exploded", "source": "s", "pattern": "abcd", "literal": "abcd")", "\"rank-exploded",
                     "kind \"rank-exploded\" is not declared in \"kinds\"");
  }
  SUBCASE("a group its kind does not declare: a misspelt field is refused, not lost") {
    check_refused_at(R"j("kind": "k", "source": "s", "pattern": "abcd (?P<exitcode>\\d+)", "literal": "abcd")j", "{\"kind",
                     "kind \"k\" declares no field \"exitcode\"");
    CHECK(contains(refusal(one_entry(R"("kind": "second", "source": "s", "pattern": "abcd", "literal": "abcd", "details": {"how": "x"})")),
                   "kind \"second\" declares no field \"how\""));
  }
  SUBCASE("a kind's declaration") {
    const auto bad_means = R"({"events": [], "kinds": [{"kind": "k", "means": "disaster", "fields": [], "what": "t"}]})";
    CHECK(contains(refusal(bad_means), "\"means\" is one of failure, teardown, detail, pressure, status"));
    const auto twice = R"({"events": [], "kinds": [{"kind": "k", "means": "failure", "fields": [], "what": "t"},
                                                   {"kind": "k", "means": "failure", "fields": [], "what": "t"}]})";
    CHECK(contains(refusal(twice), "kind \"k\" is declared twice"));
    const auto no_fields = R"({"events": [], "kinds": [{"kind": "k", "means": "failure", "what": "t"}]})";
    CHECK(contains(refusal(no_fields), "a kind needs \"fields\""));
  }
  SUBCASE("the wrong shape") {
    CHECK(contains(refusal("[]"), "expected an object"));
    CHECK(contains(refusal("{\"events\": [], \"extra\": 1}"), "test.json:1:25: unknown field \"extra\""));
    CHECK(contains(refusal("{\"events\": [\"x\"], \"kinds\": []}"), "test.json:1:13: each event entry must be an object"));
    CHECK(contains(refusal("{\"events\": []}"), "expected {\"kinds\": [...], \"events\": [...]}"));
    CHECK(contains(refusal(one_entry(R"("kind": 3, "source": "s", "pattern": "abcd", "literal": "abcd")")), "\"kind\" must be a string"));
  }
}

TEST_CASE("line events: signal names in every spelling logs use") {
  CHECK(signal_number_from_text("9") == 9);
  CHECK(signal_number_from_text("SIGKILL") == 9);
  CHECK(signal_number_from_text("KILL") == 9);
  CHECK(signal_number_from_text("Signals.SIGTERM") == 15);
  CHECK(signal_number_from_text("Killed") == 9);
  CHECK(signal_number_from_text("Segmentation fault") == 11);
  CHECK(signal_number_from_text("segmentation fault") == 11);
  CHECK(signal_number_from_text("Bus error") == 7);
  CHECK(signal_number_from_text("Aborted") == 6);
  CHECK(signal_number_from_text("SIGIOT") == 6);
  CHECK(signal_number_from_text("floating-point exception") == 8);
  CHECK(signal_number_from_text("Trace/breakpoint trap") == 5);
  CHECK_FALSE(signal_number_from_text("0"));
  CHECK_FALSE(signal_number_from_text("65"));
  CHECK_FALSE(signal_number_from_text("99999999999"));
  CHECK_FALSE(signal_number_from_text("Unknown signal 77"));
  CHECK_FALSE(signal_number_from_text(""));
}

TEST_CASE("line events: the literal runs a pattern requires") {
  using Runs = std::vector<std::string>;
  CHECK(required_literal_runs("Sending process (?P<pid>\\d+) closing signal ") == Runs{"Sending process ", " closing signal "});
  CHECK(required_literal_runs("failed \\(exitcode: ") == Runs{"failed (exitcode: "});
  CHECK(required_literal_runs("ab?cd*e+f{0,2}g") == Runs{"a", "c", "e", "g"});
  CHECK(required_literal_runs("\\bexit\\x41code\\pLz\\p{Greek}y") == Runs{"exit", "code", "z", "y"});
  CHECK(required_literal_runs("a[]x(]b\\]c") == Runs{"a", "b]c"});
  CHECK(required_literal_runs("ab|cd").empty());
  CHECK(required_literal_runs("ab(?:c|d)ef") == Runs{"ab", "ef"});
  CHECK(required_literal_runs("ab(?i)cd") == Runs{"ab"});
  CHECK(required_literal_runs("ab(?s)cd") == Runs{"ab", "cd"});
  CHECK(required_literal_runs("x\\Q.*(\\Ey") == Runs{"x.*(y"});
  CHECK(required_literal_runs("caf\xC3\xA9?s") == Runs{"caf", "s"});
}

TEST_CASE("line events: the prefilter finds each literal at every offset and nothing else") {
  const std::vector<std::string> literals{"closing signal", "kill event", "bash: ", "OOMKilled", "died with <Signals."};
  const LineEventPrefilter prefilter(literals);
  CHECK(prefilter.stride() == 3);  // the shortest literal, 6 bytes, holds 3 windows of 4
  std::mt19937 random(7);
  // Text around the literal: letters a-c, and the literals' own bytes, which
  // probe the bitmap and the verification without forming a literal.
  auto noise = [&](std::size_t size) {
    static const std::string alphabet = "abc OKkisl:";
    std::string text(size, ' ');
    for (auto& c : text) c = alphabet[random() % alphabet.size()];
    return text;
  };
  for (std::size_t literal = 0; literal < literals.size(); ++literal) {
    for (std::size_t offset = 0; offset < 40; ++offset) {
      const auto text = noise(offset) + literals[literal] + noise(random() % 7);
      const auto found = prefilter.find(text);
      CAPTURE(text);
      CHECK(found[literal]);
      for (std::size_t other = 0; other < literals.size(); ++other) {
        CHECK(found[other] == (text.find(literals[other]) != std::string::npos));
      }
    }
  }
  CHECK(prefilter.find("").none());
  CHECK(prefilter.find("abc").none());
}

TEST_CASE("line events: JSON value positions by pointer") {
  const std::string text = "// comment\n{\"events\": [\n  {\"kind\": \"x\", /* c */ \"a/b\": [1, 2]}\n]}";
  const auto positions = index_json_text_positions(text);
  REQUIRE(positions.count("/events/0/kind") == 1);
  CHECK(positions.at("/events/0/kind").line == 3);
  CHECK(positions.at("/events/0/kind").column == 12);
  REQUIRE(positions.count("/events/0/a~1b/1") == 1);
  CHECK(positions.at("/events/0/a~1b/1").column == 36);
  CHECK(index_json_text_positions("{\"a\": [1, ").count("/a/0") == 1);  // tolerant of a cut text
  CHECK(index_json_text_positions(std::string(100000, '[')).size() == kMaxIndexedDepth + 1);
}
