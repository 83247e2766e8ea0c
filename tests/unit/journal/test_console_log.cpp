#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <fstream>
#include <random>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include "journal/console_log.h"

using namespace ftdiag;
using namespace ftdiag::evidence;
using namespace ftdiag::journal;

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

TEST_CASE("stdout and stderr are kept apart, CRLF and lone CR end lines") {
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

// ---------------------------------------------------------------------------
// Chunk boundaries, the observer, and a reference model of the format.

namespace {

constexpr std::size_t kMax = ConsoleLogWriter::kMaxLineBytes;

// The rules of console.log applied one byte at a time, the obvious way: the
// writer must produce exactly this, whatever its chunking and shortcuts.
class ReferenceConsole {
 public:
  void feed(ConsoleStream stream, std::string_view bytes, double now) {
    State& state = states_[index(stream)];
    for (char c : bytes) {
      if (state.after_cr) {
        state.after_cr = false;
        if (c == '\n') continue;  // "\r\n" is one line end
      }
      if (c == '\n' || c == '\r') {
        if (state.text.empty()) state.started = now;  // an empty line
        end(stream, state);
        state.after_cr = (c == '\r');
        continue;
      }
      if (state.text.size() == kMax) end(stream, state);  // a byte beyond the limit: cut
      if (state.text.empty()) state.started = now;
      state.text.push_back(c);
    }
  }
  void finish() {
    for (auto stream : {ConsoleStream::out, ConsoleStream::err, ConsoleStream::terminal}) {
      State& state = states_[index(stream)];
      if (!state.text.empty()) end(stream, state);
    }
  }
  const std::string& log() const { return log_; }

 private:
  struct State {
    std::string text;
    double started = 0;
    bool after_cr = false;
  };
  static std::size_t index(ConsoleStream stream) {
    return stream == ConsoleStream::out ? 0 : stream == ConsoleStream::err ? 1 : 2;
  }
  void end(ConsoleStream stream, State& state) {
    log_ += fmt::format("{:.6f} {} ", state.started, static_cast<char>(stream));
    log_ += state.text;
    log_ += '\n';
    state.text.clear();
  }
  std::array<State, 3> states_;
  std::string log_;
};

struct Chunk {
  ConsoleStream stream;
  std::string bytes;
  double now;
};

std::string read_console_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

// Feeds chunks through a writer backed by a temporary file; returns the file.
std::string console_log_of(const std::vector<Chunk>& chunks, ConsoleLineObserver* observer = nullptr) {
  char path[] = "/tmp/ftdiag-console-XXXXXX";
  int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  {
    ConsoleLogWriter writer{UniqueFd(fd)};
    writer.set_observer(observer);
    for (const auto& chunk : chunks) writer.feed(chunk.stream, chunk.bytes, chunk.now);
    writer.finish();
  }
  std::string content = read_console_file(path);
  ::unlink(path);
  return content;
}

std::string reference_log_of(const std::vector<Chunk>& chunks) {
  ReferenceConsole reference;
  for (const auto& chunk : chunks) reference.feed(chunk.stream, chunk.bytes, chunk.now);
  reference.finish();
  return reference.log();
}

// Output with every hard case: short and empty lines, "\n", "\r\n", lone
// "\r" and "\r\r\n", NUL and high bytes, lines just under, at and over the
// split length (some ended by "\r" or "\r\n"), and no final line end.
std::string corpus(std::mt19937& random) {
  static const std::string kEnds[] = {"\n", "\r\n", "\r", "\r\r\n", "\n\n", "\n\r"};
  std::string text;
  auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(random); };
  for (int piece = 0; piece < 400; ++piece) {
    std::size_t length = pick(40);
    if (pick(40) == 0) length = kMax - 2 + pick(5);          // around the split length
    if (pick(100) == 0) length = 2 * kMax + pick(3) - 1;      // two cuts
    for (std::size_t i = 0; i < length; ++i) {
      const std::size_t kind = pick(50);
      text.push_back(kind == 0 ? '\0' : kind == 1 ? '\xff' : static_cast<char>('a' + pick(26)));
    }
    text += kEnds[pick(std::size(kEnds))];
  }
  text += "unterminated";
  return text;
}

// Cuts `text` into chunks of random sizes, often tiny (1 byte, which puts
// every "\r" before its "\n" at a chunk's end), sometimes large.
std::vector<std::string> random_cuts(std::string_view text, std::mt19937& random) {
  std::vector<std::string> pieces;
  while (!text.empty()) {
    const std::size_t kind = std::uniform_int_distribution<std::size_t>(0, 3)(random);
    const std::size_t most = kind == 0 ? 1 : kind == 1 ? 8 : kind == 2 ? 300 : 3 * kMax;
    const std::size_t size = std::min(text.size(), std::uniform_int_distribution<std::size_t>(1, most)(random));
    pieces.emplace_back(text.substr(0, size));
    text.remove_prefix(size);
  }
  return pieces;
}

struct Recorder : ConsoleLineObserver {
  std::string as_log;
  std::size_t calls = 0;
  void on_line(double time, ConsoleStream stream, std::string_view text) override {
    ++calls;
    as_log += fmt::format("{:.6f} {} ", time, static_cast<char>(stream));
    as_log += text;
    as_log += '\n';
  }
};

}  // namespace

TEST_CASE("property: any chunking of the same output at the same time gives the same console.log") {
  for (std::uint32_t seed = 1; seed <= 12; ++seed) {
    CAPTURE(seed);
    std::mt19937 random(seed);
    const std::string text = corpus(random);
    const double now = 1764405600.123456;
    const std::string whole = console_log_of({{ConsoleStream::out, text, now}});
    CHECK(whole == reference_log_of({{ConsoleStream::out, text, now}}));
    std::vector<Chunk> chunks;
    for (auto& piece : random_cuts(text, random)) chunks.push_back({ConsoleStream::out, std::move(piece), now});
    CHECK(console_log_of(chunks) == whole);
  }
}

TEST_CASE("property: three interleaved streams, chunked at random, match the byte-at-a-time reference") {
  for (std::uint32_t seed = 100; seed < 108; ++seed) {
    CAPTURE(seed);
    std::mt19937 random(seed);
    const ConsoleStream streams[] = {ConsoleStream::out, ConsoleStream::err, ConsoleStream::terminal};
    std::vector<std::vector<std::string>> pieces;
    for (int s = 0; s < 3; ++s) pieces.push_back(random_cuts(corpus(random), random));
    // Interleave the three streams' pieces in a random order, keeping each
    // stream's own order; the time moves on at random, as between reads.
    std::vector<Chunk> chunks;
    std::array<std::size_t, 3> next{};
    double now = 1764405600.0;
    while (next[0] < pieces[0].size() || next[1] < pieces[1].size() || next[2] < pieces[2].size()) {
      const int s = std::uniform_int_distribution<int>(0, 2)(random);
      if (next[s] == pieces[s].size()) continue;
      if (random() % 3 == 0) now += 0.000001 * (1 + random() % 5000);
      chunks.push_back({streams[s], std::move(pieces[s][next[s]++]), now});
    }
    Recorder recorder;
    const std::string log = console_log_of(chunks, &recorder);
    CHECK(log == reference_log_of(chunks));
    CHECK(recorder.as_log == log);  // the observer saw every record, in order, as written
  }
}

TEST_CASE("a lone CR at a chunk's end and the LF that opens the next chunk are one line end") {
  const std::string log = console_log_of({{ConsoleStream::terminal, "50%\r", 1.0},
                                          {ConsoleStream::out, "\n", 2.0},  // another stream: its own line
                                          {ConsoleStream::terminal, "\n", 3.0},
                                          {ConsoleStream::terminal, "\n", 4.0}});
  CHECK(log == "1.000000 t 50%\n2.000000 o \n4.000000 t \n");
}

TEST_CASE("a CR, an empty chunk, then an LF are still one line end") {
  const std::string log =
      console_log_of({{ConsoleStream::out, "a\r", 1.0}, {ConsoleStream::out, "", 2.0}, {ConsoleStream::out, "\nb\n", 3.0}});
  CHECK(log == "1.000000 o a\n3.000000 o b\n");
}

TEST_CASE("long lines: cut at the limit, a line of exactly the limit is one record") {
  const std::string exact(kMax, 'x');
  CHECK(console_log_of({{ConsoleStream::out, exact + "\r\n" + "y\n", 1.0}}) ==
        "1.000000 o " + exact + "\n1.000000 o y\n");
  // The same line arriving in two chunks: its continuation after the cut is
  // stamped with the time its own first byte arrived.
  const std::string log = console_log_of({{ConsoleStream::out, exact, 1.0}, {ConsoleStream::out, "zz\n", 2.0}});
  CHECK(log == "1.000000 o " + exact + "\n2.000000 o zz\n");
  const std::string twice(2 * kMax + 1, 'w');
  CHECK(console_log_of({{ConsoleStream::err, twice, 5.0}}) ==
        "5.000000 e " + std::string(kMax, 'w') + "\n5.000000 e " + std::string(kMax, 'w') +
            "\n5.000000 e w\n");
}

TEST_CASE("the observer sees each record once: split pieces and lines ended by finish() included") {
  struct Lines : ConsoleLineObserver {
    std::vector<std::tuple<double, ConsoleStream, std::string>> seen;
    void on_line(double time, ConsoleStream stream, std::string_view text) override {
      seen.emplace_back(time, stream, std::string(text));
    }
  } lines;
  const std::string long_line(kMax + 3, 'L');
  console_log_of({{ConsoleStream::out, "first\r\nsec", 1.0},
                  {ConsoleStream::err, long_line + "\n", 2.0},
                  {ConsoleStream::out, "ond\r", 3.0},
                  {ConsoleStream::terminal, "tail without end", 4.0}},
                 &lines);
  using Seen = std::tuple<double, ConsoleStream, std::string>;
  REQUIRE(lines.seen.size() == 5);
  CHECK(lines.seen[0] == Seen{1.0, ConsoleStream::out, "first"});
  CHECK(lines.seen[1] == Seen{2.0, ConsoleStream::err, std::string(kMax, 'L')});
  CHECK(lines.seen[2] == Seen{2.0, ConsoleStream::err, "LLL"});
  CHECK(lines.seen[3] == Seen{1.0, ConsoleStream::out, "second"});  // stamped when its first byte came
  CHECK(lines.seen[4] == Seen{4.0, ConsoleStream::terminal, "tail without end"});
}

TEST_CASE("records are written once enough are buffered, and the count of lines is kept") {
  char path[] = "/tmp/ftdiag-console-XXXXXX";
  int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  ConsoleLogWriter writer{UniqueFd(fd)};
  std::string many;
  while (many.size() < 2 * ConsoleLogWriter::kBufferBytes) many += "y\n";
  writer.feed(ConsoleStream::out, many, 7.5);
  // Without a flush, all but the last buffer's worth are on disk already.
  const std::string on_disk = read_console_file(path);
  CHECK(on_disk.size() > ConsoleLogWriter::kBufferBytes / 2);
  CHECK(on_disk.rfind("7.500000 o y\n", 0) == 0);
  writer.finish();
  CHECK(writer.lines_written() == many.size() / 2);
  CHECK(read_console_file(path).size() == (many.size() / 2) * std::string_view("7.500000 o y\n").size());
  ::unlink(path);
}
