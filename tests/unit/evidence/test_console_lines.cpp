// console.log's lines read back: a timestamp, a stream letter, the text.
#include <doctest/doctest.h>

#include "evidence/console_lines.h"

using namespace ftdiag::evidence;

TEST_CASE("malformed console lines are refused") {
  CHECK_FALSE(parse_console_line("").has_value());
  CHECK_FALSE(parse_console_line("garbage").has_value());
  CHECK_FALSE(parse_console_line("12.5 x text").has_value());
  CHECK_FALSE(parse_console_line("abc o text").has_value());
  CHECK(parse_console_line("12.5 o").has_value());  // an empty line
}
