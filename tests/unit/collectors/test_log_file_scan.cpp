// The plain-log scanner (collectors/log_file_scan.h) with the project's own
// tables: every event and phase at the line an editor shows, whatever the
// line ends (LF, CRLF, lone "\r" redraws, none at the end), bytes (NUL,
// invalid UTF-8), line lengths and block boundaries; the tail, the kernel
// lines inside a console, the cap on events, the lines' times; a file read
// from disk and the line-by-line fallback give the same evidence.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "evidence/quoted_line.h"
#include "log_scan_testing.h"

namespace {

namespace fs = std::filesystem;
using namespace ftdiag::evidence;
using namespace ftdiag::collectors;
using namespace ftdiag::collectors::testing;
using ftdiag::parse::testing::read_whole;

std::vector<fs::path> fixture_logs() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(FTDIAG_FIXTURES_DIR) / "logs")) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 10);
  return files;
}

// The scanner and the exact readers agree on every event and phase of `text`.
void check_against_reference(const std::string& text) {
  const auto scanned = scan(text);
  CHECK(event_lines(scanned.log) == reference_events(text));
  CHECK(phase_lines(scanned.log) == reference_phases(text));
}

// Ordinary lines of a training console, about 100 bytes each, none an event.
std::string ordinary_line(std::size_t i) {
  switch (i % 4) {
    case 0: return "{'loss': 0." + std::to_string(1000 + i % 9000) + ", 'learning_rate': 1.8e-05, 'epoch': 0.42}\n";
    case 1: return "[2024-05-08 08:47:31,261] [INFO] [logging.py:96:log_dist] [Rank 0] step=" + std::to_string(i) + ", skipped=0\n";
    case 2: return "node1:1234:1234 [0] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7 comm " + std::to_string(i) + "\n";
    default: return "/usr/lib/python3/dist-packages/torch/utils/data.py:558: UserWarning: this DataLoader will create workers\n";
  }
}

// A text of `bytes` or more: ordinary lines, with `inserted` lines placed at
// the line numbers given (1-based).
std::string console_of(std::size_t bytes, const std::vector<std::pair<std::size_t, std::string>>& inserted) {
  std::string text;
  std::size_t line = 1;
  auto next = inserted.begin();
  while (text.size() < bytes || next != inserted.end()) {
    if (next != inserted.end() && next->first == line) {
      text += next->second;
      ++next;
    } else {
      text += ordinary_line(line);
    }
    ++line;
  }
  return text;
}

const std::string kTeardownLine = "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 21119 closing signal SIGTERM\n";
const std::string kRankFailed =
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 1 (pid: 21120) of binary: /usr/bin/python3\n";
const std::string kSaving = "Saving model checkpoint to /out/checkpoint-500\n";
const std::string kBar0 = "  0%|          | 0/100 [00:00<?, ?it/s]";
const std::string kBar50 = " 50%|#####     | 50/100 [00:10<00:10,  5.00it/s]";
const std::string kBar100 = "100%|##########| 100/100 [00:20<00:00,  5.00it/s]";

}  // namespace

TEST_CASE("log scan: every fixture log gives the exact readers' events and phases, at their lines") {
  std::size_t events = 0;
  for (const auto& file : fixture_logs()) {
    CAPTURE(file.filename().string());
    const auto text = read_whole(file);
    check_against_reference(text);
    events += reference_events(text).size();
  }
  CHECK(events > 100);
}

TEST_CASE("log scan: CRLF line ends give the same events at the same lines") {
  for (const auto& file : fixture_logs()) {
    CAPTURE(file.filename().string());
    const auto text = read_whole(file);
    const auto crlf = with_crlf(text);
    const auto plain = scan(text);
    const auto windows = scan(crlf);
    CHECK(event_lines(windows.log) == event_lines(plain.log));
    CHECK(phase_lines(windows.log) == phase_lines(plain.log));
    CHECK(windows.log.line_count == plain.log.line_count);
    for (const auto& event : windows.log.events) CHECK(event.text.find('\r') == std::string::npos);
    for (const auto& line : windows.log.tail) CHECK(line.text.find('\r') == std::string::npos);
  }
}

TEST_CASE("log scan: a shell's death message is found with trailing spaces, CR and leading NULs") {
  // The table strips these before matching; the all-at-once search must not
  // lose the line over a "$" or "^" in its pattern.
  using namespace std::string_literals;
  for (const std::string& line : {"Killed\n"s, "Killed\r\n"s, "Killed   \n"s, "Killed\0\0\n"s, "\0\0Killed\n"s,
                                  "run.sh: line 3:  4242 Killed                  python train.py  \r\n"s,
                                  "Segmentation fault (core dumped)\t\r\n"s}) {
    const std::string text = "epoch 1\n" + line + "done\n";
    CAPTURE(text);
    REQUIRE(reference_events(text).size() == 1);
    CHECK(event_lines(scan(text).log) == reference_events(text));
  }
}

TEST_CASE("log scan: a lone CR redraws its line, and only the last drawing is read") {
  const std::string text = "Loading model weights\n" + kBar0 + "\r" + kBar50 + "\r" + kBar100 + "\n" + kTeardownLine + kBar0 +
                           "\r" + kRankFailed + kSaving;
  const auto scanned = scan(text);
  CHECK(scanned.log.line_count == 5);
  CHECK(event_lines(scanned.log) == std::vector<std::string>{"3: launcher-teardown", "4: rank-failed"});
  CHECK(scanned.log.events[1].text == kRankFailed.substr(0, kRankFailed.size() - 1));
  CHECK(phase_lines(scanned.log) == reference_phases(text));
  REQUIRE(scanned.log.tail.size() == 5);
  CHECK(scanned.log.tail[1].line_number == 2);
  CHECK(scanned.log.tail[1].text == kBar100);  // what the terminal showed last
  CHECK(scanned.log.tail[3].text == kRankFailed.substr(0, kRankFailed.size() - 1));
  CHECK_FALSE(scanned.log.ends_mid_line);
  check_against_reference(text);

  // A drawing a later "\r" overwrote is not what the terminal showed: its
  // words are not read, and the line keeps its number.
  const std::string overwritten = "step 1\n" + kRankFailed.substr(0, kRankFailed.size() - 1) + "\r" + kBar100 + "\n" + kTeardownLine;
  const auto redrawn = scan(overwritten);
  CHECK(event_lines(redrawn.log) == std::vector<std::string>{"3: launcher-teardown"});
  CHECK(redrawn.log.line_count == 3);
  CHECK(redrawn.log.bytes == overwritten.size());
  check_against_reference(overwritten);
}

TEST_CASE("log scan: a file without a final line end ends mid-line") {
  const std::string text = "step 1\n" + kTeardownLine + "Traceback (most recent call last):";
  const auto scanned = scan(text);
  CHECK(scanned.log.ends_mid_line);
  CHECK(scanned.log.line_count == 3);
  CHECK(scanned.log.bytes == text.size());
  CHECK(event_lines(scanned.log) == std::vector<std::string>{"2: launcher-teardown"});
  REQUIRE(scanned.log.tail.size() == 3);
  CHECK(scanned.log.tail.back() == LogLine{.line_number = 3, .text = "Traceback (most recent call last):"});

  const auto event_last = scan("step 1\n" + kTeardownLine.substr(0, kTeardownLine.size() - 1));
  CHECK(event_last.log.ends_mid_line);
  CHECK(event_lines(event_last.log) == std::vector<std::string>{"2: launcher-teardown"});

  const auto whole = scan("step 1\n" + kTeardownLine);
  CHECK_FALSE(whole.log.ends_mid_line);
  CHECK(whole.log.line_count == 2);

  const auto empty = scan("");
  CHECK(empty.log.line_count == 0);
  CHECK_FALSE(empty.log.ends_mid_line);
  CHECK(empty.log.tail.empty());
}

TEST_CASE("log scan: NUL bytes and invalid UTF-8 are counted and read past") {
  std::string text = "step 1\n";
  text += std::string(5000, '\0');  // a hole left by a crash
  text += kTeardownLine;
  text += "\xff\xfe\xc3 bad bytes \x80\x80 " + kRankFailed;
  text += std::string("loss \0 nan\n", 11);
  text += "\xe2\x96\x88\xe2\x96\x88 " + kSaving;
  const auto scanned = scan(text);
  CHECK(scanned.log.nul_bytes == 5001);
  CHECK(scanned.log.line_count == 5);
  CHECK(event_lines(scanned.log) == std::vector<std::string>{"2: launcher-teardown", "3: rank-failed"});
  check_against_reference(text);
}

TEST_CASE("log scan: a 10 MB line is read in pieces, and the lines after it keep their numbers") {
  std::string text = "start\n";
  text += std::string(3'000'000, 'x') + " " + kTeardownLine.substr(0, kTeardownLine.size() - 1) + " " + std::string(7'000'000, 'y');
  text += "\n" + kRankFailed;
  text += std::string(10'000'000, 'z');  // a last line as long, without a line end
  const auto scanned = scan(text);
  CHECK(scanned.log.bytes == text.size());
  CHECK(scanned.log.line_count == 4);
  CHECK(scanned.log.ends_mid_line);
  CHECK(event_lines(scanned.log) == std::vector<std::string>{"2: launcher-teardown", "3: rank-failed"});
  // Quoted by their head and tail around the bytes left out (quoted_line.h).
  const std::string marker = elision_marker(10'000'000 - kMaxEventText);
  for (const auto& event : scanned.log.events) CHECK(event.text.size() <= kMaxEventText + marker.size());
  REQUIRE_FALSE(scanned.log.tail.empty());
  CHECK(scanned.log.tail.back().line_number == 4);
  // Only its last MiB was read for the tail: its start is not known, and not shown as if it were.
  CHECK(scanned.log.tail.back().text ==
        " … [over " + std::to_string(LogScanner::kTailReadBytes - kMaxEventText) + " bytes elided] … " + std::string(kMaxEventText, 'z'));
}

TEST_CASE("log scan: line numbers stay exact across blocks") {
  // Ordinary lines up to each block boundary of a 3.5-block text, then
  // events, phases and a progress bar whose redraws straddle the boundary
  // (odd boundaries), or a line that ends exactly at it (even ones).
  const std::size_t size = LogScanner::kBlockBytes * 7 / 2;
  std::string text = kTeardownLine;
  std::size_t events = 1;
  std::size_t line = 1;
  for (std::size_t boundary = LogScanner::kBlockBytes; boundary < size; boundary += LogScanner::kBlockBytes) {
    const bool straddle = (boundary / LogScanner::kBlockBytes) % 2 == 1;
    const std::size_t group_start = boundary - (straddle ? 300 : kRankFailed.size() + kTeardownLine.size());
    while (text.size() + 200 < group_start) text += ordinary_line(++line);
    text += std::string(group_start - text.size() - 1, '.') + "\n";  // the filler ends where the group starts
    text += kRankFailed;
    if (straddle) text += kBar0 + "\r" + kBar50 + "\r" + kBar100 + "\r" + kBar0 + "\r" + kBar50 + "\n";
    text += kTeardownLine;
    if (!straddle) REQUIRE(text.size() == boundary);
    text += kSaving + kRankFailed;
    events += 3;
  }
  while (text.size() < size) text += ordinary_line(++line);
  const auto scanned = scan(text);
  CHECK(scanned.log.line_count == static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n')));
  CHECK(event_lines(scanned.log).size() == events);
  check_against_reference(text);
  check_against_reference(with_crlf(text));
}

TEST_CASE("log scan: interleaved ranks keep their own lines and ranks") {
  const std::string text =
      "[rank0]: step 10 loss 1.2\n"
      "[rank1]: step 10 loss 1.3\n"
      "[rank1]:RuntimeError: DataLoader worker (pid 778) is killed by signal: Killed. \n"
      "[rank0]: step 11 loss 1.1\n"
      "[default0]:  exitcode  : -9 (pid: 21120)\n"
      "[rank0]:RuntimeError: DataLoader worker (pid 777) is killed by signal: Segmentation fault. \n"
      "[rank1]: step 11 loss 1.2\n";
  const auto scanned = scan(text);
  CHECK(event_lines(scanned.log) == std::vector<std::string>{"3: worker-died", "5: rank-failed", "6: worker-died"});
  REQUIRE(scanned.log.events.size() == 3);
  CHECK(scanned.log.events[0].pid == 778);
  CHECK(scanned.log.events[0].signal == 9);
  CHECK(scanned.log.events[2].pid == 777);
  CHECK(scanned.log.events[2].signal == 11);
  CHECK(scanned.log.events[1].exit_code == -9);
  check_against_reference(text);
}

TEST_CASE("log scan: the tail is the last 200 lines, numbered, as a terminal showed them") {
  std::string text;
  for (int i = 1; i <= 500; ++i) text += "line " + std::to_string(i) + "\n";
  text += kBar0 + "\r" + kBar50 + "\r" + kBar100 + "\r\n";  // line 501, CRLF after its last redraw
  text += "last\r\n";
  const auto scanned = scan(text);
  REQUIRE(scanned.log.tail.size() == LogScanner::kTailLines);
  CHECK(scanned.log.tail.front() == LogLine{.line_number = 303, .text = "line 303"});
  CHECK(scanned.log.tail[198] == LogLine{.line_number = 501, .text = kBar100});
  CHECK(scanned.log.tail.back() == LogLine{.line_number = 502, .text = "last"});

  // Past the bytes read back for the tail, the first (partial) line read is left out.
  std::string big = console_of(3 * LogScanner::kTailReadBytes, {});
  big += "the end\n";
  const auto lines = static_cast<std::uint64_t>(std::count(big.begin(), big.end(), '\n'));
  const auto long_log = scan(big);
  REQUIRE(long_log.log.tail.size() == LogScanner::kTailLines);
  CHECK(long_log.log.tail.back() == LogLine{.line_number = lines, .text = "the end"});
  CHECK(long_log.log.tail.front().line_number == lines - LogScanner::kTailLines + 1);
  CHECK(long_log.log.tail.front().text + "\n" == ordinary_line(lines - LogScanner::kTailLines + 1));
}

TEST_CASE("log scan: kernel lines inside a console become kernel events at the file's lines") {
  const std::string text =
      "step 10 loss 1.2\n"
      "step 11 loss 1.1\n"
      "[ 8123.456789] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/slurm/job_7,"
      "task_memcg=/slurm/job_7/step_0,task=python,pid=629,uid=1000\n"
      "[ 8123.456801] Memory cgroup out of memory: Killed process 629 (python) total-vm:102400000kB, "
      "anon-rss:83600000kB, file-rss:286080kB, shmem-rss:0kB, UID:1000 pgtables:166015kB oom_score_adj:0\n"
      "step 12 loss 1.0\n"
      "/bin/sh: line 1:   629 Killed                  python train.py\n";
  const auto scanned = scan(text);
  CHECK(scanned.log.kernel_lines == 2);
  REQUIRE(scanned.kernel_events.size() == 1);
  const auto& kill = scanned.kernel_events[0];
  CHECK(kill.kind == "oom-kill");
  CHECK(kill.pid == 629);
  CHECK(kill.from.file == "console.log");
  CHECK(kill.from.line == 4);
  CHECK(kill.detail("constraint") == "CONSTRAINT_MEMCG");
  CHECK(kill.detail("oom_memcg") == "/slurm/job_7");
  CHECK(kill.text.find("Killed process 629 (python)") != std::string::npos);
  CHECK(event_lines(scanned.log) == std::vector<std::string>{"6: shell-reported-death"});

  // The same report without printk stamps (a Slurm output quoting it), after a redraw.
  const std::string quoted = kBar0 + "\r" + kBar50 + "\n" +
                             "Memory cgroup out of memory: Killed process 4242 (pt_main_thread) total-vm:1000kB, "
                             "anon-rss:900kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:10kB oom_score_adj:0\n";
  const auto slurm = scan(quoted);
  REQUIRE(slurm.kernel_events.size() == 1);
  CHECK(slurm.kernel_events[0].pid == 4242);
  CHECK(slurm.kernel_events[0].from.line == 2);
}

TEST_CASE("log scan: past the cap the first and the last events are kept, the rest counted") {
  const std::size_t count = kMaxLogEvents + 2000;
  std::string text;
  for (std::size_t i = 1; i <= count; ++i) {
    text += "Sending process " + std::to_string(i) + " closing signal SIGTERM\n";
  }
  const auto scanned = scan(text);
  REQUIRE(scanned.log.events.size() == kMaxLogEvents);
  CHECK(scanned.log.events_dropped == 2000);
  CHECK(scanned.log.events.front().from.line == 1);
  CHECK(scanned.log.events[kMaxLogEvents / 2 - 1].from.line == kMaxLogEvents / 2);
  CHECK(scanned.log.events[kMaxLogEvents / 2].from.line == kMaxLogEvents / 2 + 2001);
  CHECK(scanned.log.events.back().from.line == count);
  CHECK(scanned.log.events.back().pid == static_cast<int>(count));
}

TEST_CASE("log scan: lines stamped with a time give their events and phases that time") {
  const std::string text =
      "[2024-05-08 08:47:30,100] [INFO] Saving model checkpoint to /out/checkpoint-500\n"
      "[2024-05-08 08:47:31,261] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 5938 closing "
      "signal SIGTERM\n"
      "May  8 08:47:32 node1 systemd[1]: train.service: A process of this unit has been killed by the OOM killer.\n"
      "Sending process 5939 closing signal SIGTERM\n";
  const auto with_year = scan(text, 2024);
  REQUIRE(with_year.log.events.size() == 3);
  CHECK(with_year.log.events[0].time == doctest::Approx(1715158051.261));
  CHECK(with_year.log.events[1].time == doctest::Approx(1715158052.0));
  CHECK_FALSE(with_year.log.events[2].time);
  REQUIRE_FALSE(with_year.log.phases.empty());
  CHECK(with_year.log.phases[0].first_time == doctest::Approx(1715158050.1));

  const auto without_year = scan(text);
  REQUIRE(without_year.log.events.size() == 3);
  CHECK(without_year.log.events[0].time == doctest::Approx(1715158051.261));
  CHECK_FALSE(without_year.log.events[1].time);  // a syslog stamp has no year of its own
}

TEST_CASE("log scan: a file gives the same evidence as its text in memory") {
  std::vector<std::pair<std::size_t, std::string>> inserted{
      {2, kTeardownLine},
      {3, kBar0 + "\r" + kBar50 + "\r\n"},
      {4, std::string("\0\0", 2) + "Killed\r\n"},
      {5, "May  8 08:47:32 node1 systemd[1]: train.service: A process of this unit has been killed by the OOM killer.\n"},
      {6, "[ 8123.456801] Memory cgroup out of memory: Killed process 629 (python) total-vm:1000kB, anon-rss:900kB, "
          "file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:10kB oom_score_adj:0\n"}};
  std::string text = console_of(LogScanner::kBlockBytes * 5 / 2, inserted);
  text += kRankFailed + kSaving + "the last line, cut";

  const fs::path folder = fs::temp_directory_path() / ("ftdiag-log-scan-" + std::to_string(::getpid()));
  fs::create_directories(folder);
  const fs::path file = folder / "console.log";
  {
    std::ofstream out(file, std::ios::binary);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  // Written in May 2024: the year of the syslog line.
  const struct timespec may_2024[2] = {{1715158000, 0}, {1715158000, 0}};
  REQUIRE(::utimensat(AT_FDCWD, file.c_str(), may_2024, 0) == 0);
  const auto from_disk = project_scanner().scan_file(file, "log-files");
  fs::remove_all(folder);
  REQUIRE(from_disk);
  const auto in_memory = project_scanner().scan_text(text, Provenance{.collector = "log-files", .file = file.string()}, 2024);
  CHECK(from_disk->log == in_memory.log);
  CHECK(from_disk->kernel_events == in_memory.kernel_events);
  CHECK(in_memory.log.events.size() == 4);
  CHECK(in_memory.kernel_events.size() == 1);
  CHECK(in_memory.log.ends_mid_line);
}

TEST_CASE("log scan: a large file read in parts at once gives the evidence of one pass") {
  // Events, phases, redraws and kernel lines spread over the whole file, so
  // that every part holds some and the parts' seams fall between them.
  const std::size_t size = static_cast<std::size_t>(LogScanner::kParallelMinBytes) + LogScanner::kBlockBytes * 3;
  std::vector<std::pair<std::size_t, std::string>> inserted;
  for (std::size_t line = 3; line < size / 60; line += 97'531) {
    inserted.emplace_back(line, kTeardownLine);
    inserted.emplace_back(line + 1, kBar0 + "\r" + kBar50 + "\n");
    inserted.emplace_back(line + 2, kSaving);
    inserted.emplace_back(line + 3, "[ 8123.456801] Memory cgroup out of memory: Killed process 629 (python) total-vm:1000kB, "
                                    "anon-rss:900kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:10kB oom_score_adj:0\n");
  }
  std::string text = console_of(size, inserted);
  text += kRankFailed + "the last line, cut";

  const fs::path folder = fs::temp_directory_path() / ("ftdiag-log-parts-" + std::to_string(::getpid()));
  fs::create_directories(folder);
  const fs::path file = folder / "console.log";
  {
    std::ofstream out(file, std::ios::binary);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  const auto one_pass = project_scanner().scan_file(file, "log-files", nullptr, 1);
  const auto in_parts = project_scanner().scan_file(file, "log-files", nullptr, 3);
  fs::remove_all(folder);
  REQUIRE(one_pass);
  REQUIRE(in_parts);
  CHECK(one_pass->log.events.size() > 10);
  CHECK(one_pass->log.phases.size() > 10);
  CHECK(event_lines(in_parts->log) == event_lines(one_pass->log));
  CHECK(phase_lines(in_parts->log) == phase_lines(one_pass->log));
  CHECK(in_parts->log == one_pass->log);
  CHECK(in_parts->kernel_events == one_pass->kernel_events);
}

TEST_CASE("log scan: a missing file is missing, with the reason") {
  const auto scanned = project_scanner().scan_file("/nonexistent/ftdiag/console.log", "log-files");
  REQUIRE_FALSE(scanned);
  CHECK(scanned.missing().reason == ftdiag::MissingReason::not_present);
}

TEST_CASE("log scan: tables the all-at-once search cannot take are read line by line, with the same evidence") {
  // "(?U)" (RE2's ungreedy flag) is a construct Hyperscan rejects: one such
  // pattern sends every line through the exact readers.
  std::string phases_json = read_whole(ftdiag::parse::testing::project_file("rules/phases.json"));
  const auto close = phases_json.rfind(']');
  REQUIRE(close != std::string::npos);
  phases_json.insert(close, ", {\"phase\": \"never\", \"patterns\": [\"(?U)qqzz+qq\"]}\n");
  const auto phases = PhaseTable::parse(phases_json, "phases-with-rejected.json");
  REQUIRE(phases);
  const LogScanner fallback(&phases.value(), &ftdiag::parse::testing::project_table());
  CHECK(fallback.fallback_reason().find("(?U)") != std::string::npos);
  CHECK(project_scanner().fallback_reason().empty());

  std::string text;
  for (const auto& file : fixture_logs()) text += read_whole(file);
  text += kBar0 + "\r" + kBar50 + "\r" + kBar100 + "\n" + "[ 8123.456801] Memory cgroup out of memory: Killed process 629 (python) "
          "total-vm:1000kB, anon-rss:900kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:10kB oom_score_adj:0\n";
  text = console_of(LogScanner::kBlockBytes + 1000, {{1, text}, {30000, with_crlf(text)}});
  const auto fast = scan(text, 2024);
  const auto slow = fallback.scan_text(text, kTestLog, 2024);
  CHECK(slow.log == fast.log);
  CHECK(slow.kernel_events == fast.kernel_events);
  CHECK(fast.log.events.size() > 100);
  CHECK(fast.kernel_events.size() >= 2);
}

TEST_CASE("log scan: what reads as text") {
  CHECK(looks_like_text("step 1 loss 0.5\nstep 2\n"));
  CHECK(looks_like_text(""));
  CHECK(looks_like_text("\x1b[32mINFO\x1b[0m ok\r\n"));
  CHECK_FALSE(looks_like_text(std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10)));
  CHECK_FALSE(looks_like_text(std::string("\x80\x02}q\0(X", 7)));
  CHECK_FALSE(looks_like_text(std::string(64, '\0')));
}

TEST_CASE("log scan: a file truncated while it is read is not complete, and says why") {
  const fs::path folder = fs::temp_directory_path() / ("ftdiag-log-shrink-" + std::to_string(::getpid()));
  fs::create_directories(folder);
  const fs::path file = folder / "train.log";
  {
    std::ofstream out(file, std::ios::binary);
    const std::string line = "step 1 loss 2.000 lr 0.0001 some more words to fill the line\n";
    for (std::size_t written = 0; written < LogScanner::kBlockBytes * 16; written += line.size()) out << line;
  }
  // Truncated as soon as the first block is read: the reads after it come up short.
  std::atomic<std::uint64_t> bytes_read{0};
  std::thread truncator([&] {
    while (bytes_read.load() == 0) std::this_thread::yield();
    ::truncate(file.c_str(), 1000);
  });
  const auto scanned = project_scanner().scan_file(file, "log-files", &bytes_read, 1);
  truncator.join();
  fs::remove_all(folder);
  REQUIRE(scanned);
  REQUIRE_FALSE(scanned->log.complete);
  CHECK(scanned->log.complete.missing().detail.find("truncated") != std::string::npos);
}

TEST_CASE("log scan: a line longer than the quoting limit keeps its head and tail around the bytes elided") {
  const std::string line = "HEAD" + std::string(100000, 'x') + "TAIL";
  const auto scanned = scan("step 1 loss 2.0\n" + line + "\n");
  REQUIRE_FALSE(scanned.log.tail.empty());
  const std::string& quoted = scanned.log.tail.back().text;
  CHECK(quoted.size() < 5000);
  CHECK(quoted.starts_with("HEADxxx"));
  CHECK(quoted.ends_with("xxxTAIL"));
  CHECK(quoted.find("bytes elided]") != std::string::npos);
}

TEST_CASE("log scan: a message a terminal or an issue form wrapped is read whole, on its first line") {
  const auto scanned = scan(
      "step 10\n"
      "RuntimeError: DataLoader worker (pid 47) is killed by signal: Bus\n"
      "error. It is possible that dataloader's workers are out of shared\n"
      "memory. Please try to raise your shared memory limit.\n");
  REQUIRE(scanned.log.events.size() == 1);
  const auto& event = scanned.log.events[0];
  CHECK(event.kind == "worker-died");
  CHECK(event.signal == 7);
  CHECK(event.pid == 47);
  CHECK(event.from.line == 2);
  CHECK(event.text.find("killed by signal: Bus error.") != std::string::npos);
  // A line holding a message's words, with nothing after it that completes it, is no event.
  CHECK(scan("RuntimeError: DataLoader worker (pid 47) is killed by signal: Bus\n").log.events.empty());
  CHECK(scan("RuntimeError: DataLoader worker (pid 47) is killed by signal: Bus\n\nerror. It is possible\n").log.events.empty());

  // Wrapped at a fixed width, mid-word or at a space the wrap ate, behind syslog's escapes.
  const auto raylet = scan(
      "#033[2m#033[33m(raylet)#033[0m node_manager.cc:3007: 2 Workers (tasks /\n"
      " actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: abd4, IP: 10.0.167.26) over\n");
  REQUIRE(raylet.log.events.size() == 1);
  CHECK(raylet.log.events[0].kind == "oomd-kill");
  CHECK(raylet.log.events[0].signal == 9);
  CHECK(raylet.log.events[0].detail("count") == "2");
  CHECK(raylet.log.events[0].detail("node_ip") == "10.0.167.26");
}

TEST_CASE("log scan: a message cut at a fixed width is joined as cut, when its pieces say more than its first line") {
  // Ray's report of a dead worker, cut every 100 columns by the form it was pasted into: the
  // first line already matches, and only the pieces hold the exit detail that names SIGTERM.
  const std::string message =
      "(raylet) A worker died or was killed while executing a task by an unexpected system error. RayTask ID: ffffa8df3c1bbc "
      "Worker PID: 870287 Worker exit type: SYSTEM_ERROR Worker exit detail: Worker exits unexpectedly by a signal. "
      "SystemExit is raised (sys.exit is called). Exit code: 1. The process receives a SIGTERM.";
  std::string cut;
  for (std::size_t at = 0; at < message.size(); at += 100) cut += message.substr(at, 100) + "\n";
  const auto scanned = scan("step 500\n" + cut + "training done\n");
  REQUIRE(scanned.log.events.size() == 1);
  const auto& event = scanned.log.events[0];
  CHECK(event.kind == "worker-died");
  CHECK(event.signal == 15);
  CHECK(event.pid == 870287);
  CHECK(event.from.line == 2);
  CHECK(event.text == message);  // joined without a space: the cut fell mid-word

  // The first line alone, with nothing after it, is the event as far as it goes.
  const auto alone = scan(message.substr(0, 100) + "\n");
  REQUIRE(alone.log.events.size() == 1);
  CHECK_FALSE(alone.log.events[0].signal);

  // Lines of one width that are messages of their own stay apart: a launcher's teardown of
  // each rank, pids of the same length.
  const auto teardown = scan(
      "W1221 17:13:59.241000 46660 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 46807 closing signal SIGHUP\n"
      "W1221 17:13:59.242000 46660 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 46808 closing signal SIGHUP\n");
  REQUIRE(teardown.log.events.size() == 2);
  CHECK(teardown.log.events[0].pid == 46807);
  CHECK(teardown.log.events[1].pid == 46808);
  CHECK(teardown.log.events[0].text.find("46808") == std::string::npos);
}
