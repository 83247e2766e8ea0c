#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "evidence/console_log.h"

using namespace ftdiag;
using namespace ftdiag::evidence;

namespace {

// Feeds chunks through a writer backed by a real temporary file and returns
// the parsed lines.
std::vector<ConsoleLine> write_and_parse(const std::vector<std::pair<ConsoleStream, std::string>>& chunks) {
  char path[] = "/tmp/ftdiag-console-XXXXXX";
  int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  {
    ConsoleLogWriter writer{UniqueFd(fd)};
    double t = 100.0;
    for (const auto& [stream, bytes] : chunks) writer.feed(stream, bytes, t += 1);
    writer.finish();
  }
  std::ifstream in(path, std::ios::binary);
  std::vector<ConsoleLine> lines;
  std::string line;
  while (std::getline(in, line)) {
    auto parsed = parse_console_line(line);
    REQUIRE_MESSAGE(parsed.has_value(), line);
    lines.push_back(parsed.value());
  }
  ::unlink(path);
  return lines;
}

}  // namespace

TEST_CASE("console lines carry the time their first byte arrived") {
  auto lines = write_and_parse({{ConsoleStream::out, "Saving model "}, {ConsoleStream::out, "checkpoint\nnext"}});
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].text == "Saving model checkpoint");
  CHECK(lines[0].time == doctest::Approx(101.0));
  CHECK(lines[1].text == "next");  // unterminated: ended by finish()
  CHECK(lines[1].time == doctest::Approx(102.0));
}

TEST_CASE("stdout and stderr are kept apart; CRLF and lone CR end lines") {
  auto lines = write_and_parse({{ConsoleStream::out, "a\r\n"},
                                {ConsoleStream::err, "err1\n"},
                                {ConsoleStream::terminal, " 10%|#\r 20%|##\r"},
                                {ConsoleStream::terminal, "\ndone\n"}});
  REQUIRE(lines.size() == 5);
  CHECK(lines[0].stream == 'o');
  CHECK(lines[0].text == "a");
  CHECK(lines[1].stream == 'e');
  CHECK(lines[2].text == " 10%|#");
  CHECK(lines[3].text == " 20%|##");
  CHECK(lines[4].text == "done");  // the "\n" after "\r" does not make an empty line
}

TEST_CASE("binary bytes are kept as they are, long lines are split") {
  std::string binary("\x01\x02\xff\x00zz", 6);
  std::string long_line(ConsoleLogWriter::kMaxLineBytes + 10, 'x');
  auto lines = write_and_parse({{ConsoleStream::out, binary + "\n"}, {ConsoleStream::out, long_line + "\n"}});
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].text == binary);
  CHECK(lines[1].text.size() == ConsoleLogWriter::kMaxLineBytes);
  CHECK(lines[2].text.size() == 10);
}

TEST_CASE("malformed console lines are refused") {
  CHECK_FALSE(parse_console_line("").has_value());
  CHECK_FALSE(parse_console_line("garbage").has_value());
  CHECK_FALSE(parse_console_line("12.5 x text").has_value());
  CHECK_FALSE(parse_console_line("abc o text").has_value());
  CHECK(parse_console_line("12.5 o").has_value());  // an empty line
}
