// The simdjson reader of journal lines against the nlohmann path it replaces:
// for every line both give the same record or both fail.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evidence/journal_canonical.h"
#include "evidence/journal_parse.h"
#include "evidence/records_json.h"
#include "unit/evidence/journal_testing.h"

using namespace ftdiag;
using namespace ftdiag::evidence;
using namespace ftdiag::evidence::testing;
namespace fs = std::filesystem;

namespace {

// The simdjson reader refuses a number that does not fit its member (1.5 or
// 2^32 for an int, -1 for a byte count). nlohmann's get<int>() converts them
// instead, unless json_fields.h checks the range (a change proposed to the
// lead); until then lines that differ only so are told apart by the reason.
bool nlohmann_is_strict() {
  return !nlohmann_path(R"({"type":"death","time":1,"pid":1.5})").has_value();
}

bool is_range_refusal(const Fact<JournalRecord>& r) {
  if (r.has_value()) return false;
  const auto& d = r.missing().detail;
  return d.find("is not an integer") != std::string::npos || d.find("is out of range") != std::string::npos;
}

// Both give the same record, or both fail.
void check_agree(std::string_view line) {
  CAPTURE(line);
  const auto simd = parse_journal_line(line);
  if (!simd.has_value() && is_range_refusal(simd) && !nlohmann_is_strict()) return;  // see above
  const auto reference = nlohmann_path(line);
  CAPTURE(simd.has_value() ? std::string("record") : simd.missing().detail);
  CAPTURE(reference.has_value() ? std::string("record") : reference.missing().detail);
  REQUIRE(simd.has_value() == reference.has_value());
  if (simd.has_value()) CHECK(simd.value() == reference.value());
  if (!simd.has_value()) CHECK(simd.missing().reason == MissingReason::unparseable);
}

bool parses(std::string_view line) {
  check_agree(line);
  return parse_journal_line(line).has_value();
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const fs::path kCorpus = fs::path(FTDIAG_FIXTURES_DIR) / ".." / ".." / "fuzz" / "corpus";

}  // namespace

TEST_CASE("every line of the journal fuzz corpus reads the same with simdjson and nlohmann") {
  int lines = 0;
  for (const char* dir : {"journal", "journal_parse"}) {
    if (!fs::exists(kCorpus / dir)) continue;
    for (const auto& entry : fs::directory_iterator(kCorpus / dir)) {
      const std::string text = read_file(entry.path());
      check_agree(text);
      for (const auto& line : split_lines(text)) {
        check_agree(line);
        ++lines;
      }
    }
  }
  CHECK(lines >= 4);
}

TEST_CASE("every record reads back what it wrote") {
  std::mt19937_64 rng(7);
  RunStarted run;
  run.time = 1764405600.25;
  run.journal_format = kJournalFormat;
  run.ftdiag_version = "0.1.0";
  run.host = "node01";
  run.rank = 3;
  run.argv = {"deepspeed", "train.py", "--deepspeed", "ds z2.json", "caf\xC3\xA9 \"quoted\" \\ \t\n"};
  run.cwd = "/tmp";
  run.job_pid = 4242;
  run.mechanisms.emplace("netlink", true);
  run.mechanisms.emplace("oom-protection", Missing{MissingReason::permission_denied, "needs CAP_SYS_RESOURCE"});
  MemorySample sample = make_sample(3.0, 5, rng);
  MemorySample bare;
  bare.time = 4.5;
  std::vector<JournalRecord> records = {
      run,
      ProcessSeen{1.5, 4243, 4242, {4243, 7}, {"python", "-m", "x"}, "python", 12345u, "netlink-fork"},
      ProcessSeen{1.5, 4243, 4242, {}, {}, "", std::nullopt, ""},
      ProcessSeen{2.5, 4244, 4242, {4244}, {"python"}, "python", 7u, "netlink-exec", {{"LOCAL_RANK", "1"}, {"RANK", "1"}}},
      ProcessDied{2.5, 4243, ExitStatus::killed(SIGKILL), {"netlink", "waitpid"}},
      ProcessDied{2.5, 4243, ExitStatus::killed(SIGSEGV, true), {}},
      ProcessDied{2.5, 4243, ExitStatus::exited(3), {}},
      ProcessDied{2.5, 4244, Missing{MissingReason::not_present, "vanished"}, {"proc-scan"}},
      sample,
      bare,
      SupervisorNote{4.0, "forwarded SIGTERM"},
      RunEnded{5.0, ExitStatus::killed(SIGKILL)},
  };
  for (const auto& record : records) {
    const std::string line = record_to_json(record).dump();
    CAPTURE(line);
    auto parsed = parse_journal_line(line);
    REQUIRE(parsed.has_value());
    CHECK(parsed.value() == record);
    check_agree(line);
  }
}

TEST_CASE("lines as ftdiag run writes them are read without simdjson, to the same records") {
  std::mt19937_64 rng(5);
  MemorySample bare;  // every fact missing, no processes
  bare.time = 4.5;
  MemorySample negative = make_sample(-0.0, 2, rng);
  negative.processes[0].pid = -7;
  const std::vector<JournalRecord> taken = {
      make_sample(1795941954.9732409, 3, rng),
      bare,
      negative,
      ProcessSeen{1.5, 4243, 4242, {4243, 7}, {"python", "-m", "x"}, "python", 12345u, "netlink-fork"},
      ProcessSeen{1.5, 4243, 4242, {}, {}, "", std::nullopt, ""},
      ProcessSeen{2.5, 4244, 4242, {4244}, {"python"}, "python", 7u, "netlink-exec", {{"LOCAL_RANK", "1"}, {"RANK", "1"}}},
      SupervisorNote{4.0, "forwarded SIGTERM"},
  };
  for (const auto& record : taken) {
    const std::string line = record_to_json(record).dump();
    CAPTURE(line);
    std::visit(
        [&](const auto& r) {
          std::remove_cvref_t<decltype(r)> out;
          CHECK(canonical::read_canonical(line, out));
          CHECK(out == r);
        },
        record);
    CHECK(parse_journal_line(line).value() == record);
  }
  // Left to the general path: an exit status, a map, escapes, bytes outside
  // printable ASCII.
  const std::vector<JournalRecord> left = {
      ProcessDied{2.5, 4243, ExitStatus::killed(SIGKILL), {"netlink"}},
      RunEnded{5.0, ExitStatus::exited(0)},
      ProcessSeen{1.5, 4243, 4242, {}, {"say \"hi\""}, "", std::nullopt, ""},
      ProcessSeen{1.5, 4243, 4242, {}, {"caf\xC3\xA9"}, "", std::nullopt, ""},
  };
  for (const auto& record : left) {
    const std::string line = record_to_json(record).dump();
    CAPTURE(line);
    std::visit(
        [&](const auto& r) {
          std::remove_cvref_t<decltype(r)> out;
          CHECK_FALSE(canonical::read_canonical(line, out));
        },
        record);
    CHECK(parse_journal_line(line).value() == record);
  }
}

TEST_CASE("a line read into the memory of another record reads the same") {
  std::mt19937_64 rng(13);
  MemorySample big = make_sample(2.5, 150, rng);
  big.cgroup = Missing{MissingReason::permission_denied, "x"};
  const std::vector<JournalRecord> records = {
      make_sample(1.5, 3, rng), big, MemorySample{}, make_sample(3.5, 0, rng),
      ProcessSeen{1.5, 4243, 4242, {4243, 7}, {"python", "-m", "x"}, "python", 12345u, "netlink-fork"},
      ProcessSeen{1.5, 4244, 4242, {}, {}, "", std::nullopt, ""},
      ProcessDied{2.5, 4243, ExitStatus::killed(SIGKILL), {"netlink"}},
      SupervisorNote{4.0, "forwarded SIGTERM"},
  };
  JournalLineParser parser;
  for (const auto& before : records) {
    for (const auto& record : records) {
      const std::string line = record_to_json(record).dump() + std::string(JournalLineParser::padding(), ' ');
      JournalRecord spare = before;
      const auto parsed =
          parser.parse_in_place(line.data(), line.size() - JournalLineParser::padding(), line.size(), &spare);
      REQUIRE(parsed.has_value());
      CHECK(parsed.value() == record);
    }
  }
  MemorySample reset = big;
  const auto capacity = reset.processes.capacity();
  canonical::reset_keeping_capacity(reset);
  CHECK(reset == MemorySample{});
  CHECK(reset.processes.capacity() == capacity);
}

TEST_CASE("a written line changed anywhere reads as nlohmann reads it") {
  // Every byte of lines as `ftdiag run` writes them deleted, doubled or
  // replaced: the canonical reader must take the change as the general path
  // would, or leave the line to it.
  std::mt19937_64 rng(9);
  MemorySample sample = make_sample(1795941954.25, 2, rng);
  sample.processes[1].swap = Missing{MissingReason::permission_denied, "d"};
  const std::vector<std::string> lines = {
      record_to_json(sample).dump(),
      record_to_json(ProcessSeen{1.5, 42, 1, {42}, {"a", "b"}, "c", 7u, "netlink-fork"}).dump(),
  };
  const std::string replacements = " \t\"\\:,{}[]0159-+.eEnx\x7F\xC3";
  for (const auto& line : lines) {
    for (std::size_t i = 0; i < line.size(); ++i) {
      std::string changed = line;
      changed.erase(i, 1);
      check_agree(changed);
      changed = line;
      changed.insert(i, 1, line[i]);
      check_agree(changed);
      for (const char c : replacements) {
        changed = line;
        changed[i] = c;
        check_agree(changed);
      }
    }
  }
  // Keys out of order, repeated, unknown or absent; values at the edges.
  const std::string pre = R"({"node":{},"processes":[)";
  const std::string post = R"(],"time":1,"type":"sample"})";
  for (const char* process : {
           R"({"rss_bytes":5,"pid":1})",
           R"({"pid":1,"pid":2})",
           R"({"pid":1,"rss_bytes":5,"rss_bytes":6})",
           R"({"pid":1,"other":5})",
           R"({"rss_bytes":5})",
           R"({"pid":1})",
           R"({})",
           R"({"pid":-0,"rss_bytes":0})",
           R"({"pid":01})",
           R"({"pid":2147483647,"rss_bytes":999999999999999})",
           R"({"pid":2147483648})",
           R"({"pid":1,"rss_bytes":9999999999999999})",
           R"({"pid":1,"rss_bytes":18446744073709551615})",
           R"({"pid":1,"rss_bytes":18446744073709551616})",
           R"({"pid":1,"rss_bytes":-1})",
           R"({"pid":1,"rss_bytes":1.0})",
           R"({"pid":1,"rss_bytes":null})",
           R"({"pid":1,"rss_bytes":{"missing":{}}})",
           R"({"pid":1,"rss_bytes":{"missing":{"reason":"timed-out"}}})",
           R"({"pid":1,"rss_bytes":{"missing":{"detail":"d","reason":"timed-out","x":1}}})",
           R"({"pid":1,"rss_bytes":{"missing":{},"x":1}})",
           R"({"pid":1,"rss_bytes":{"missing":5}})",
           R"({"p\u0069d":1})",
           R"({"pid" :1})",
           R"({"pid":1 })",
       }) {
    check_agree(pre + process + post);
    check_agree(pre + R"({"pid":3},)" + process + post);
  }
  for (const char* time : {"1", "-0", "0.5", "1e3", "1E-3", "1e400", "1e-400", "1.", "01", ".5", "1.7976931348623157e308",
                           "4.9406564584124654e-324", "123456789012345678901234567890"}) {
    check_agree(std::string(R"({"node":{},"processes":[],"time":)") + time + R"(,"type":"sample"})");
  }
  for (const char* tail : {R"(,"type":"sample"})", R"(,"type":"sample"} )", R"(,"type":"sample"}x)",
                           R"(,"type":"sample","type":"sample"})", R"(,"type":"process"})", R"(})"}) {
    check_agree(std::string(R"({"node":{},"processes":[],"time":1)") + tail);
  }
}

TEST_CASE("plain integers read as std::from_chars reads them") {
  std::mt19937_64 rng(3);
  std::vector<std::string> texts = {"0", "-0", "7", "-7", "10", "999999999999999", "-999999999999999", "1000000000000000",
                                    "00", "01", "-", "--1", "", "x", "12345678", "123456789", "-2147483648", "2147483648"};
  for (int i = 0; i < 20000; ++i) {
    const int digits = 1 + static_cast<int>(rng() % 17);
    std::string t = rng() % 4 == 0 ? "-" : "";
    for (int d = 0; d < digits; ++d) t += static_cast<char>('0' + rng() % 10);
    texts.push_back(t);
  }
  for (const auto& t : texts) {
    CAPTURE(t);
    const std::string padded = t + ",}]\"1234567890123456";
    std::int64_t expected = 0;
    const auto [end, error] = std::from_chars(t.data(), t.data() + t.size(), expected);
    const bool plain = error == std::errc{} && end == t.data() + t.size() && !t.empty() &&
                       t.find_first_not_of('-') != std::string::npos && t.size() - (t[0] == '-') <= 15 &&
                       (t[t[0] == '-'] != '0' || t.size() - (t[0] == '-') == 1);
    std::int64_t got = 0;
    const char* after = canonical::plain_integer(padded.data(), got);
    CHECK((after != nullptr) == plain);
    if (plain && after != nullptr) {
      CHECK(got == expected);
      CHECK(after == padded.data() + t.size());
    }
    int narrow = 0;
    const char* narrow_after = canonical::plain_integer(padded.data(), narrow);
    CHECK((narrow_after != nullptr) == (plain && std::in_range<int>(expected)));
    std::uint32_t unsigned_value = 0;
    const char* unsigned_after = canonical::plain_integer(padded.data(), unsigned_value);
    CHECK((unsigned_after != nullptr) == (plain && std::in_range<std::uint32_t>(expected)));
  }
}

TEST_CASE("simdjson and nlohmann agree on hand-made lines, good and bad") {
  // Whitespace, framing, byte order mark.
  CHECK(parses(kNote));
  CHECK(parses(" \t" + kNote + " \r"));
  CHECK(parses("\xEF\xBB\xBF" + kNote));
  CHECK_FALSE(parses(" \xEF\xBB\xBF" + kNote));
  CHECK_FALSE(parses(kNote + "}"));
  CHECK_FALSE(parses(kNote + "{}"));
  CHECK_FALSE(parses(kNote + " x"));
  CHECK_FALSE(parses(kNote + "\x01"));
  CHECK_FALSE(parses(""));
  CHECK_FALSE(parses("   "));
  CHECK_FALSE(parses("\r"));
  CHECK_FALSE(parses("{}"));
  CHECK_FALSE(parses("[1,2]"));
  CHECK_FALSE(parses("5"));
  CHECK_FALSE(parses("\"note\""));
  CHECK_FALSE(parses("null"));
  CHECK_FALSE(parses(std::string("{\"type\":\"note\",\"time\":1,\"what\":\"x\0\"}", 32)));
  // nlohmann ends its input at a NUL byte outside a string (a file cut short
  // by a crash may be padded with zeros).
  CHECK(parses(kNote + std::string("\0garbage", 8)));
  CHECK(parses(kNote + std::string("\n\0\n{", 4)));
  CHECK_FALSE(parses(std::string("\0", 1) + kNote));
  CHECK_FALSE(parses(std::string(100, '\0')));
  CHECK_FALSE(parses(kNote.substr(0, 20) + std::string("\0", 1) + kNote.substr(20)));
  CHECK_FALSE(parses(std::string(kNote.data(), 20)));

  // Cut short at every byte.
  for (std::size_t n = 0; n < kNote.size(); ++n) CHECK_FALSE(parses(kNote.substr(0, n)));
  const std::string death =
      R"({"pid":4122,"status":{"core_dumped":false,"description":"killed by SIGKILL","exit_code":null,"launcher_code":-9,"signal":9,"signal_name":"SIGKILL"},"time":1795941956.2,"type":"death","witnesses":["netlink","waitpid"]})";
  CHECK(parses(death));
  for (std::size_t n = 0; n < death.size(); ++n) CHECK_FALSE(parses(death.substr(0, n)));

  // The type: its key may be escaped, the last one counts, it must be a string.
  CHECK(parses(R"({"typ\u0065":"not\u0065","time":1,"what":"x"})"));
  CHECK(parses(R"({"type":"martian","type":"note","time":1,"what":"x"})"));
  CHECK_FALSE(parses(R"({"type":"note","type":"martian","time":1,"what":"x"})"));
  CHECK_FALSE(parses(R"({"type":"note","type":5,"time":1,"what":"x"})"));
  CHECK_FALSE(parses(R"({"type":5,"time":1,"what":"x"})"));
  CHECK_FALSE(parses(R"({"type":null,"time":1,"what":"x"})"));
  CHECK_FALSE(parses(R"({"time":1,"what":"x"})"));
  CHECK_FALSE(parses(R"({"type":"Note","time":1,"what":"x"})"));
  CHECK_FALSE(parses(R"({"type":"note ","time":1,"what":"x"})"));

  // Required keys: absent or null fails; optional ones keep their default.
  CHECK_FALSE(parses(R"({"type":"note","time":1})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":null})"));
  CHECK_FALSE(parses(R"({"type":"note","what":"x"})"));
  CHECK_FALSE(parses(R"({"type":"note","time":null,"what":"x"})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":nul})"));
  CHECK(parses(R"({"type":"process","time":1,"pid":2})"));
  CHECK(parses(R"({"type":"process","time":1,"pid":2,"start_ticks":null})"));
  CHECK_FALSE(parses(R"({"type":"process","time":1,"pid":2,"ppid":null})"));
  CHECK_FALSE(parses(R"({"type":"process","time":1,"pid":2,"argv":null})"));
  CHECK(parses(R"({"type":"death","time":1,"pid":2})"));  // status: "no status"
  CHECK(parses(R"({"type":"run","time":1,"host":"h","argv":[],"rank":null,"journal_format":null})"));
  CHECK_FALSE(parses(R"({"type":"run","time":1,"host":"h"})"));
  CHECK(parses(R"({"type":"end","time":1,"job_status":{}})"));
  CHECK_FALSE(parses(R"({"type":"end","time":1,"job_status":null})"));
  CHECK(parses(R"({"type":"end","time":1,"job_status":{"missing":{"reason":"failed"}}})"));  // not a Fact: an exit status

  // Wrong types.
  CHECK_FALSE(parses(R"({"type":"note","time":"1","what":"x"})"));
  CHECK_FALSE(parses(R"({"type":"note","time":true,"what":"x"})"));
  CHECK_FALSE(parses(R"({"type":"note","time":[1],"what":"x"})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":5})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":["x"]})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":{"missing":{}}})"));
  CHECK_FALSE(parses(R"({"type":"process","time":1,"pid":2,"nspid":[1,"2"]})"));
  CHECK_FALSE(parses(R"({"type":"process","time":1,"pid":2,"nspid":{"0":1}})"));
  CHECK_FALSE(parses(R"({"type":"process","time":1,"pid":2,"argv":"python"})"));
  CHECK_FALSE(parses(R"({"type":"run","time":1,"host":"h","argv":[],"pseudo_terminal":1})"));
  CHECK_FALSE(parses(R"({"type":"run","time":1,"host":"h","argv":[],"pseudo_terminal":"true"})"));
  CHECK_FALSE(parses(R"({"type":"run","time":1,"host":"h","argv":[],"mechanisms":[]})"));
  CHECK_FALSE(parses(R"({"type":"run","time":1,"host":"h","argv":[],"mechanisms":{"netlink":1}})"));
  CHECK(parses(R"({"type":"run","time":1,"host":"h","argv":[],"mechanisms":{"netlink":1,"netlink":true}})"));
  CHECK_FALSE(parses(R"({"type":"run","time":1,"host":"h","argv":[],"mechanisms":{"netlink":true,"netlink":1}})"));
  CHECK(parses(R"({"type":"run","time":1,"host":"h","argv":[],"mechanisms":{"a":{"missing":{"reason":"timed-out"}},"b":false}})"));

  // Facts: the value, or an object whose only key is "missing", holding an object.
  const std::string pre = R"({"type":"death","time":1,"pid":2,"status":)";
  CHECK(parses(pre + R"({"missing":{"reason":"permission-denied","detail":"d"}}})"));
  CHECK(parses(pre + R"({"missing":{"reason":"no-such-reason"}}})"));
  CHECK(parses(pre + R"({"missing":{}}})"));
  CHECK(parses(pre + R"({"missing":{"reason":"failed","other":[1,{}]}}})"));
  CHECK(parses(pre + R"({"missing":{},"missing":{"reason":"timed-out","detail":"d"}}})"));
  CHECK(parses(pre + R"({"missing":{"reason":5},"missing":{"reason":"timed-out"}}})"));
  CHECK_FALSE(parses(pre + R"({"missing":{"reason":5}}})"));
  CHECK_FALSE(parses(pre + R"({"missing":{"reason":null}}})"));
  CHECK_FALSE(parses(pre + R"({"missing":{"detail":["d"]}}})"));
  CHECK(parses(pre + R"({"missing":{"reason":5},"signal":9}})"));  // not a Missing: an exit status
  CHECK(parses(pre + R"({"missing":5}})"));                         // likewise, with nothing set
  CHECK(parses(pre + R"({"signal":9,"missing":{}}})"));
  CHECK_FALSE(parses(pre + R"({"missing":{"reason":"x"},"signal":"9"}})"));
  CHECK(parses(pre + R"(null})") == false);
  CHECK_FALSE(parses(pre + R"("killed"})"));
  CHECK(parses(pre + R"({"signal":9,"core_dumped":true,"launcher_code":"ignored","description":[]}})"));
  CHECK_FALSE(parses(pre + R"({"signal":9,"core_dumped":null}})"));
  CHECK_FALSE(parses(pre + R"({"signal":9,"core_dumped":0}})"));
  CHECK(parses(pre + R"({"signal":null,"exit_code":null}})"));
  const std::string cg = R"({"type":"sample","time":1,"node":{},"processes":[],"cgroup":)";
  CHECK(parses(cg + R"({"version":2,"path":"/a","limit_bytes":null,"usage_bytes":{"missing":{"reason":"failed"}}}})"));
  CHECK(parses(cg + R"({"missing":{"reason":"not-present","detail":"no cgroup"}}})"));
  CHECK_FALSE(parses(cg + R"({"missing":{"reason":"not-present"},"version":2}})"));  // a cgroup without path
  CHECK(parses(cg + R"({"missing":{"reason":"not-present"},"version":2,"path":"/"}})"));
  CHECK_FALSE(parses(cg + R"({"version":2,"path":"/a","limit_bytes":{"missing":5}}})"));
  CHECK_FALSE(parses(cg + R"({"version":2,"path":"/a","limit_bytes":{"other":{}}}})"));
  CHECK_FALSE(parses(cg + R"({"version":2,"path":"/a","limit_bytes":{"missing":{},"x":1}}})"));
  CHECK(parses(cg + R"({"version":2,"path":"/a","limit_bytes":{"missing":{"reason":"unsupported"}}}})"));
  CHECK_FALSE(parses(cg + R"({"version":2,"path":"/a","under_oom":"false"}})"));
  CHECK_FALSE(parses(cg + R"([]})"));
  CHECK_FALSE(parses(R"({"type":"sample","time":1,"node":null,"processes":[]})"));
  CHECK_FALSE(parses(R"({"type":"sample","time":1,"node":{},"processes":[{"rss_bytes":1}]})"));
  CHECK_FALSE(parses(R"({"type":"sample","time":1,"node":{},"processes":[{"pid":1},5]})"));
  CHECK(parses(R"({"type":"sample","time":1,"node":{},"processes":[{"pid":1},{"pid":2,"swap_bytes":null}]})") == false);
  CHECK(parses(R"({"type":"sample","time":1,"node":{},"dev_shm":{"total_bytes":1,"used_bytes":1,"available_bytes":0},"processes":[]})"));
  CHECK_FALSE(parses(R"({"type":"sample","time":1,"node":{},"dev_shm":{"total_bytes":1,"used_bytes":1},"processes":[]})"));

  // Duplicate keys: the last one counts, earlier ones must still be JSON.
  CHECK(parses(R"({"type":"note","time":1,"what":5,"what":"x"})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x","what":5})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":[1,tru],"what":"x"})"));
  CHECK(parses(R"({"type":"sample","time":1,"node":{"shmem_bytes":1},"node":{"mem_total_bytes":2},"processes":[{"pid":1}]})"));
  CHECK(parses(R"({"type":"process","time":1,"pid":2,"argv":["a"],"argv":["b","c"]})"));
  CHECK(parses(R"({"type":"death","time":1,"pid":2,"status":{"signal":9},"status":{"exit_code":1}})"));

  // Strings: escapes as JSON has them, nothing else.
  CHECK(parses(R"({"type":"note","time":1,"what":"a\u00e9\ud83d\ude00\n\"\\\/\b\f\r\t\u0000"})"));
  CHECK(parses("{\"type\":\"note\",\"time\":1,\"what\":\"caf\xC3\xA9 \xF0\x9F\x98\x80\"}"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"\ud800"})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"\udc00"})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"\ud800\u0041"})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"\x"})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"\u12"})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"\u12G4"})"));
  CHECK_FALSE(parses("{\"type\":\"note\",\"time\":1,\"what\":\"tab\there\"}"));
  CHECK_FALSE(parses("{\"type\":\"note\",\"time\":1,\"what\":\"\xC3\"}"));
  CHECK_FALSE(parses("{\"type\":\"note\",\"time\":1,\"what\":\"\xED\xA0\x80\"}"));  // a surrogate in UTF-8
  CHECK_FALSE(parses("{\"type\":\"note\",\"time\":1,\"what\":\"\xFF\"}"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x"y})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x" "y"})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what"x:"x"})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x","x"y:1})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x","x\q":1})"));
  CHECK(parses(R"({"type":"note","time":1,"what":"x","x\u0000\"":1})"));

  // Numbers.
  CHECK(parses(R"({"type":"note","time":-0,"what":"x"})"));
  CHECK(parses(R"({"type":"note","time":1795941954.9748697,"what":"x"})"));
  CHECK(parses(R"({"type":"note","time":1.5e-3,"what":"x"})"));
  CHECK(parses(R"({"type":"note","time":1E+2,"what":"x"})"));
  CHECK(parses(R"({"type":"note","time":1e-400,"what":"x"})"));
  CHECK(parses(R"({"type":"note","time":123456789012345678901234567890,"what":"x"})"));
  CHECK(parses(R"({"type":"note","time":1.7976931348623157e308,"what":"x"})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1.7976931348623159e308,"what":"x"})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1e400,"what":"x"})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x","n":1e400})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x","n":)" + std::string(400, '9') + "}"));
  CHECK(parses(R"({"type":"note","time":1,"what":"x","n":)" + std::string(300, '9') + "}"));
  for (const char* bad : {"01", "-", "1.", ".5", "+1", "1e", "1e+", "0x10", "1.5.2", "--1", "1e5e5", "Infinity", "NaN",
                          "-Infinity", "1 2", "1,", "tru", "truex", "nulll", "True"}) {
    CHECK_FALSE(parses(std::string(R"({"type":"note","time":)") + bad + R"(,"what":"x"})"));
    CHECK_FALSE(parses(std::string(R"({"type":"note","time":1,"what":"x","n":)") + bad + "}"));
    CHECK_FALSE(parses(std::string(R"({"type":"note","time":1,"what":"x","n":[)") + bad + "]}"));
  }
  CHECK(parses(R"({"type":"death","time":1,"pid":2147483647})"));
  CHECK(parses(R"({"type":"death","time":1,"pid":-2147483648})"));
  CHECK(parses(R"({"type":"death","time":1,"pid":-0})"));
  CHECK(parses(R"({"type":"sample","time":1,"node":{"mem_total_bytes":18446744073709551615},"processes":[]})"));
  CHECK(parses(R"({"type":"sample","time":1,"node":{"mem_total_bytes":-0},"processes":[]})"));
  CHECK(parses(R"({"type":"process","time":1,"pid":2,"start_ticks":0})"));

  // Nested garbage in keys nobody reads must still be JSON.
  CHECK(parses(R"({"type":"note","time":1,"what":"x","extra":[1,{"a":null,"b":[[],{}]},"s",true,false,-0.5e-3]})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x","extra":[1,]})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x","extra":[,1]})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x","extra":{"a":1,}})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x","extra":{"a" 1}})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x","extra":{"a":}})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x","extra":{1:2}})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x","extra":[1 2]})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x","extra":[1}})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x","extra":{]})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x","extra":"\u00zz"})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x",})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x",,"y":1})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1 "what":"x"})"));
  CHECK_FALSE(parses(R"({"type":"note";"time":1,"what":"x"})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x","extra":[[[[[]]]]})"));
  // A string followed by ':' where a value should end (On-Demand would step
  // over it as if it were a key).
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x","a":"b":null})"));
  CHECK_FALSE(parses(R"({"time":1,"job_status":{},"a":"b":null},"type":"end"})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x","a":["b":1]})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x":1})"));
  CHECK_FALSE(parses(R"({"type":"note":1,"time":1,"what":"x"})"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x","a":{"b":"c":1}})"));
  CHECK_FALSE(parses(R"({"time":1,"what":"x","type":"note":1})"));
  CHECK(parses(R"({"type":"note","time":1,"what":"x","extra":)" + std::string(500, '[') + std::string(500, ']') + "}"));
  CHECK_FALSE(parses(R"({"type":"note","time":1,"what":"x","extra":)" + std::string(500, '[') + std::string(499, ']') + "}"));
}

TEST_CASE("numbers that do not fit their member are refused") {
  // nlohmann converts them (see nlohmann_is_strict); the simdjson reader does not.
  for (const char* line : {
           R"({"type":"death","time":1,"pid":1.5})",
           R"({"type":"death","time":1,"pid":1.0})",
           R"({"type":"death","time":1,"pid":1e2})",
           R"({"type":"death","time":1,"pid":2147483648})",
           R"({"type":"death","time":1,"pid":-2147483649})",
           R"({"type":"death","time":1,"pid":9223372036854775808})",
           R"({"type":"death","time":1,"pid":-9223372036854775809})",
           R"({"type":"death","time":1,"pid":2,"status":{"signal":4294967305}})",
           R"({"type":"sample","time":1,"node":{"mem_total_bytes":-1},"processes":[]})",
           R"({"type":"sample","time":1,"node":{"mem_total_bytes":18446744073709551616},"processes":[]})",
           R"({"type":"sample","time":1,"node":{"mem_total_bytes":1.5},"processes":[]})",
           R"({"type":"process","time":1,"pid":2,"start_ticks":-5})",
       }) {
    CAPTURE(line);
    auto r = parse_journal_line(line);
    REQUIRE_FALSE(r.has_value());
    CHECK(is_range_refusal(r));
    CHECK(r.missing().reason == MissingReason::unparseable);
    if (nlohmann_is_strict()) check_agree(line);
  }
}

TEST_CASE("the reasons say what is wrong") {
  CHECK(parse_journal_line(R"({"type":"note","time":1,"what":"x)").missing().detail == kNotAJsonObject);
  CHECK(parse_journal_line(R"([1])").missing().detail.find("not a JSON object") != std::string::npos);
  CHECK(parse_journal_line(R"({"time":1})").missing().detail == "no \"type\"");
  CHECK(parse_journal_line(R"({"type":"martian"})").missing().detail == "unknown record type \"martian\"");
  CHECK(parse_journal_line(R"({"type":"note","time":1})").missing().detail == "no \"what\"");
  CHECK(parse_journal_line(R"({"type":"martian","x":[1,]})").missing().detail == kNotAJsonObject);
  const auto deep = parse_journal_line(R"({"type":"sample","time":1,"node":{},"processes":[{"pid":1},{"pid":"x"}]})");
  REQUIRE_FALSE(deep.has_value());
  CHECK(deep.missing().detail.find("processes") != std::string::npos);
  CHECK(deep.missing().detail.find("pid") != std::string::npos);
  // An absent optional fact says which key was absent, as the nlohmann path does.
  auto died = parse_journal_line(R"({"type":"death","time":1,"pid":2})");
  REQUIRE(died.has_value());
  CHECK(std::get<ProcessDied>(died.value()).status.missing() == Missing{MissingReason::not_present, "no status"});
}

