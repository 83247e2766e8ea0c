#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "base/text.h"
#include "report/text_layout.h"

using namespace ftdiag::report;

TEST_CASE("text layout: wrapping breaks between words only, within the width, with the prefixes") {
  const std::string text = "Killed by the OOM killer 0.1 s into a checkpoint save: the job's memory reached 1.2 GiB against its limit";
  const auto wrapped = wrap(text, 30, "  ", "    ");
  const auto lines = ftdiag::text::lines(wrapped);
  REQUIRE(lines.size() > 3);
  CHECK(lines[0].rfind("  Killed", 0) == 0);
  std::string rejoined;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    CHECK_MESSAGE(display_width(lines[i]) <= 30, lines[i]);
    if (i > 0) CHECK(lines[i].rfind("    ", 0) == 0);
    rejoined += (i ? " " : "");
    rejoined += lines[i].substr(lines[i].find_first_not_of(' '));
  }
  CHECK(rejoined == text);  // no word cut, none lost
  CHECK(wrapped.back() == '\n');
}

TEST_CASE("text layout: a word longer than the line gets a line of its own, uncut") {
  const std::string path = "/shared/jobs/20261129-083000-node01-4242/vm-pid9750/console.log";
  const auto wrapped = wrap("see " + path + " for more", 30, "", "  ");
  const auto lines = ftdiag::text::lines(wrapped);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "see");
  CHECK(lines[1] == "  " + path);
  CHECK(lines[2] == "  for more");
}

TEST_CASE("text layout: newlines in the text start a new line after the rest prefix") {
  CHECK(wrap("one\ntwo", 80, "- ", "  ") == "- one\n  two\n");
  CHECK(wrap("", 80, "> ", "  ") == "> \n");
}

TEST_CASE("text layout: the width counts characters, not bytes, and not colour escapes") {
  CHECK(display_width("abc") == 3);
  CHECK(display_width("▁▂▃✕") == 4);
  CHECK(display_width("\x1b[1;31mred\x1b[0m") == 3);
}

TEST_CASE("text layout: tones colour only when the style colours") {
  TextStyle plain;
  CHECK(toned(plain, Tone::bad, "oom") == "oom");
  TextStyle colour;
  colour.colour = true;
  CHECK(toned(colour, Tone::bad, "oom") == "\x1b[1;31moom\x1b[0m");
  CHECK(toned(colour, Tone::bad, "").empty());
}
