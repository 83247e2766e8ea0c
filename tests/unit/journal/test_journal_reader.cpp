// The streaming reader of journal files: blocks, cut lines, over-long lines,
// odd files; its records are those the getline and nlohmann reader gives.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <random>
#include <string>
#include <vector>

#include "evidence/journal_parse.h"
#include "evidence/records_json.h"
#include "journal/journal_chunks.h"
#include "journal/journal_reader.h"
#include "unit/evidence/journal_testing.h"

using namespace ftdiag;
using namespace ftdiag::evidence;
using namespace ftdiag::evidence::testing;
using namespace ftdiag::journal;
namespace fs = std::filesystem;

namespace {

class JournalFolder {
 public:
  JournalFolder() {
    std::string pattern = (fs::temp_directory_path() / "ftdiag-journal-parse-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~JournalFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  fs::path write(const std::string& name, const std::string& content) const {
    std::ofstream out(path_ / name, std::ios::binary);
    out << content;
    return path_ / name;
  }

 private:
  fs::path path_;
};

struct Collected : JournalSink {
  std::vector<JournalRecord> records;
  std::vector<std::pair<std::uint64_t, std::string>> problems;
  void on_record(JournalRecord&& r) override { records.push_back(std::move(r)); }
  void on_problem(std::uint64_t line, std::string reason) override { problems.emplace_back(line, std::move(reason)); }
};

// Copies each record, as RunBuilder does: the reader then reuses the records'
// memory for the lines after.
struct Copied : Collected {
  void on_record(JournalRecord&& r) override { records.push_back(r); }
};

// What the getline + nlohmann reader makes of the same file.
Collected nlohmann_file(const fs::path& file) {
  Collected c;
  std::ifstream in(file, std::ios::binary);
  std::string line;
  std::uint64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line == "\r") continue;
    auto r = nlohmann_path(line);
    if (r) {
      c.records.push_back(std::move(r).value());
    } else {
      c.problems.emplace_back(number, r.missing().detail);
    }
  }
  return c;
}

}  // namespace

TEST_CASE("read_journal gives what the getline and nlohmann reader gives, across block boundaries") {
  JournalFolder dir;
  std::mt19937_64 rng(42);
  std::string text;
  // About 3 MiB: lines of every size cross the 1 MiB blocks, with empty lines,
  // damaged lines, a "\r" line and CRLF endings mixed in.
  int i = 0;
  while (text.size() < (3u << 20)) {
    ++i;
    const int kind = static_cast<int>(rng() % 20);
    if (kind == 0) {
      text += "\n";
    } else if (kind == 1) {
      text += R"({"type":"note","time":1,"what":)" "\n";
    } else if (kind == 2) {
      text += "\r\n";
    } else if (kind == 3) {
      const ProcessSeen seen{1.0 * i, i, 1, {i}, {"python", "train.py"}, "python", 5u, "proc-scan"};
      text += record_to_json(seen).dump() + "\r\n";
    } else if (kind == 4) {
      text += record_to_json(ProcessDied{1.0 * i, i, ExitStatus::killed(9), {"netlink"}}).dump() + "\n";
    } else {
      text += record_to_json(make_sample(1.0 * i, static_cast<int>(rng() % 200), rng)).dump() + "\n";
    }
  }
  text += record_to_json(RunEnded{9.0, ExitStatus::exited(0)}).dump();  // no final "\n"
  const auto file = dir.write("journal.jsonl", text);
  const Collected reference = nlohmann_file(file);

  // On the calling thread, and on workers whose chunks are delivered in order;
  // with a sink that takes the records, and one that copies them (whose
  // records' memory the reader reuses).
  for (unsigned threads : {1u, 2u, 4u, 0u, 101u, 102u}) {
    CAPTURE(threads);
    Copied copied;
    Collected collected;
    Collected& simd = threads > 100 ? copied : collected;
    auto stats = read_journal(file, simd, JournalReadOptions{threads > 100 ? threads - 100 : threads});
    REQUIRE(stats.has_value());
    CHECK(stats->bytes == text.size());
    CHECK(stats->lines == split_lines(text).size());
    CHECK(stats->records == simd.records.size());
    CHECK(stats->problems == simd.problems.size());
    REQUIRE(simd.records.size() == reference.records.size());
    CHECK(simd.records == reference.records);
    REQUIRE(simd.problems.size() == reference.problems.size());
    for (std::size_t k = 0; k < simd.problems.size(); ++k) {
      CHECK(simd.problems[k].first == reference.problems[k].first);
      CHECK(simd.problems[k].second == std::string(kNotAJsonObject));
    }
    CHECK(std::holds_alternative<RunEnded>(simd.records.back()));
  }
}

TEST_CASE("read_journal: the last line, cut or whole, CRLF, empty files") {
  JournalFolder dir;
  const std::string note = R"({"type":"note","time":1,"what":"x"})";

  Collected a;
  auto stats = read_journal(dir.write("a", note + "\n" + note), a);
  REQUIRE(stats.has_value());
  CHECK(stats->lines == 2);
  CHECK(a.records.size() == 2);
  CHECK(a.problems.empty());

  Collected b;
  stats = read_journal(dir.write("b", note + "\n" + note + "\n" + note.substr(0, 20)), b);
  REQUIRE(stats.has_value());
  CHECK(b.records.size() == 2);
  REQUIRE(b.problems.size() == 1);
  CHECK(b.problems[0].first == 3);
  CHECK(b.problems[0].second == kNotAJsonObject);
  CHECK(*stats == JournalReadStats{3, 2, 1, 2 * (note.size() + 1) + 20});

  Collected c;
  stats = read_journal(dir.write("c", note + "\r\n\r\n" + note + "\r\n"), c);
  REQUIRE(stats.has_value());
  CHECK(c.records.size() == 2);
  CHECK(c.problems.empty());
  CHECK(stats->lines == 3);

  Collected d;
  stats = read_journal(dir.write("d", ""), d);
  REQUIRE(stats.has_value());
  CHECK(*stats == JournalReadStats{});

  Collected e;
  stats = read_journal(dir.write("e", "\n\n\n"), e);
  REQUIRE(stats.has_value());
  CHECK(*stats == JournalReadStats{3, 0, 0, 3});

  Collected f;
  stats = read_journal(dir.write("f", "garbage\n" + note + "\n{\"type\":\"note\"}\n"), f);
  REQUIRE(stats.has_value());
  REQUIRE(f.problems.size() == 2);
  CHECK(f.problems[0] == std::pair<std::uint64_t, std::string>{1, std::string(kNotAJsonObject)});
  CHECK(f.problems[1] == std::pair<std::uint64_t, std::string>{3, "no \"time\""});

  // A crash can leave the file's end filled with zeros.
  Collected g;
  stats = read_journal(dir.write("g", note + "\n" + note + std::string(4096, '\0')), g);
  REQUIRE(stats.has_value());
  CHECK(g.records.size() == 2);
  CHECK(g.problems.empty());
  CHECK(stats->lines == 2);
  Collected h;
  stats = read_journal(dir.write("h", note + "\n" + std::string(4096, '\0') + "\n" + note + "\n"), h);
  REQUIRE(stats.has_value());
  CHECK(h.records.size() == 2);
  REQUIRE(h.problems.size() == 1);
  CHECK(h.problems[0].first == 2);
}

std::string over_the_limit(std::size_t bytes) {
  return std::to_string(bytes) + " bytes, over the limit of " + std::to_string(kMaxJournalLine) + " (" +
         std::to_string(kMaxJournalLine >> 20) + " MiB): skipped";
}

TEST_CASE("read_journal skips a line over the limit without holding it whole, reads one at the limit, loses nothing else") {
  JournalFolder dir;
  const std::string note = R"({"type":"note","time":1,"what":"x"})";
  const std::string head = R"({"type":"note","time":2,"what":")";
  auto line_of = [&](std::size_t size) {
    std::string line = head;
    line.append(size - head.size() - 2, 'a');
    line += "\"}";
    REQUIRE(line.size() == size);
    return line;
  };

  for (unsigned threads : {1u, 3u}) {
    CAPTURE(threads);
    Collected at_cap;
    auto stats = read_journal(dir.write("cap", note + "\n" + line_of(kMaxJournalLine) + "\n" + note + "\n"), at_cap,
                              JournalReadOptions{threads});
    REQUIRE(stats.has_value());
    CHECK(at_cap.problems.empty());
    REQUIRE(at_cap.records.size() == 3);
    CHECK(std::get<SupervisorNote>(at_cap.records[1]).what.size() == kMaxJournalLine - head.size() - 2);

    // Just over the limit (the reader holds it while looking for its end, and
    // refuses it), far over it (the reader streams past it), and over it at
    // the end of the file without a "\n"; good lines between them all read.
    // The file starts with lines long enough for workers to pay.
    Collected over;
    const std::size_t far = kMaxJournalLine + (5u << 20);
    const std::string lead = line_of(3000) + "\n" + line_of(3000) + "\n";
    const std::string over_text = lead + note + "\n" + line_of(kMaxJournalLine + 1) + "\n" + note + "\n" +
                                  line_of(far) + "\r\n" + note + "\n\n" + note + "\n" + line_of(far + 3);
    stats = read_journal(dir.write("over", over_text), over, JournalReadOptions{threads});
    REQUIRE(stats.has_value());
    CHECK(over.records.size() == 6);
    REQUIRE(over.problems.size() == 3);
    CHECK(over.problems[0] == std::pair<std::uint64_t, std::string>{4, over_the_limit(kMaxJournalLine + 1)});
    CHECK(over.problems[1] == std::pair<std::uint64_t, std::string>{6, over_the_limit(far + 1)});  // its "\r" counts
    CHECK(over.problems[2] == std::pair<std::uint64_t, std::string>{10, over_the_limit(far + 3)});
    CHECK(*stats == JournalReadStats{10, 6, 3, over_text.size()});
  }
}

TEST_CASE("the chunker cuts at line ends, gives a last line its \"\\n\", and streams past long lines") {
  JournalFolder dir;
  std::mt19937_64 rng(11);
  constexpr std::size_t kChunk = 64;
  constexpr std::size_t kMaxLine = 100;
  constexpr std::size_t kPadding = 16;
  for (int round = 0; round < 200; ++round) {
    // Lines of 0 to 400 bytes: within a chunk, longer than one, over the limit.
    std::string text;
    std::vector<std::string> expected;  // each line, or "<skipped N>"
    const int lines = static_cast<int>(rng() % 30);
    for (int i = 0; i < lines; ++i) {
      const std::size_t size = rng() % 3 == 0 ? rng() % 400 : rng() % 40;
      std::string line(size, static_cast<char>('a' + i % 26));
      text += line;
      const bool newline = i + 1 < lines || rng() % 2;
      if (newline) text += "\n";
      if (newline || size > 0) expected.push_back(size > kMaxLine ? "<skipped " + std::to_string(size) + ">" : line);
    }
    CAPTURE(text);
    const fs::path file = dir.write("chunks", text);
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    JournalChunker chunker(fd, kChunk, kMaxLine, kPadding);
    std::vector<std::string> got;
    while (auto chunk = chunker.next()) {
      if (rng() % 4 == 0) chunker.set_chunk_bytes(kChunk / 4 + rng() % (kChunk * 3 / 4 + 1));  // as read_journal may
      if (chunk->skipped_line_bytes > 0) {
        CHECK(chunk->size == 0);
        got.push_back("<skipped " + std::to_string(chunk->skipped_line_bytes) + ">");
        continue;
      }
      REQUIRE(chunk->size > 0);
      CHECK(chunk->capacity >= chunk->size + kPadding);
      CHECK(chunk->text[chunk->size - 1] == '\n');
      // Lines over the limit reach a chunk only while the chunker looked for
      // their end: never more than a chunk past the limit.
      CHECK(chunk->size <= kMaxLine + kChunk + 1);
      std::string_view lines_text(chunk->text.get(), chunk->size - 1);
      for (std::size_t start = 0;;) {
        const std::size_t end = std::min(lines_text.find('\n', start), lines_text.size());
        const std::string_view line = lines_text.substr(start, end - start);
        got.push_back(line.size() > kMaxLine ? "<skipped " + std::to_string(line.size()) + ">" : std::string(line));
        if (end == lines_text.size()) break;
        start = end + 1;
      }
      chunker.recycle(std::move(*chunk));
    }
    ::close(fd);
    CHECK(chunker.error() == 0);
    CHECK(chunker.bytes_read() == text.size());
    CHECK(got == expected);  // a file ending in "\n" has no empty line after it
  }
}

TEST_CASE("read_journal refuses what is not a regular file, and never waits on a FIFO") {
  JournalFolder dir;
  Collected sink;

  auto missing = read_journal(dir.path() / "absent.jsonl", sink);
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.missing().reason == MissingReason::not_present);

  auto directory = read_journal(dir.path(), sink);
  REQUIRE_FALSE(directory.has_value());
  CHECK(directory.missing().detail.find("directory") != std::string::npos);

  const fs::path fifo = dir.path() / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto pending = std::async(std::launch::async, [&] {
    Collected s;
    return read_journal(fifo, s);
  });
  if (pending.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
    // Release the reader before failing, or the test would hang.
    const int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (writer >= 0) ::close(writer);
    FAIL("read_journal blocked on a FIFO");
  }
  auto result = pending.get();
  REQUIRE_FALSE(result.has_value());
  CHECK(result.missing().detail.find("not a regular file") != std::string::npos);

  const fs::path unreadable = dir.write("secret", kNote + "\n");
  ::chmod(unreadable.c_str(), 0);
  if (::geteuid() != 0) {
    auto denied = read_journal(unreadable, sink);
    REQUIRE_FALSE(denied.has_value());
    CHECK(denied.missing().reason == MissingReason::permission_denied);
  }
  CHECK(sink.records.empty());
}
