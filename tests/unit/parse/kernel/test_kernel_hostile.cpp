// Hostile input: the parsers never throw, never crash and stay linear.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <random>

#include "kernel_fixtures.h"

using namespace ftdiag::parse;
using namespace ftdiag::parse::testing;

namespace {

double seconds_to_scan(const std::string& text) {
  const auto start = std::chrono::steady_clock::now();
  auto events = scan_text(text);
  (void)events;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TEST_CASE("hostile: random bytes and truncated records") {
  std::mt19937 random(42);
  std::string bytes(1 << 20, '\0');
  for (char& c : bytes) c = static_cast<char>(random());
  CHECK_NOTHROW(scan_text(bytes));

  const std::string record = kernel_fixture("oom-memcg-v1.kmsg.txt");
  for (std::size_t cut = 0; cut < record.size(); cut += 97) {
    CHECK_NOTHROW(scan_text(record.substr(0, cut)));
    CHECK_NOTHROW(scan_text(record.substr(cut)));
  }
  for (std::string_view piece : {"{", "[", "\"msg\": ", "{\"MESSAGE\":[1,2,300]}", "{\"MESSAGE\":{\"a\":1},\"_TRANSPORT\":\"kernel\"}",
                                 "<99999999999999999999>[1.0] x", "[99999999999999999999999.1] x", "1,2,3;", "9,9,99999999999999999999999,-;x",
                                 "Killed process ", "Killed process 1 (", "oom-kill:constraint=,pid=,uid=",
                                 "x[1]: segfault at", "NVRM: Xid (", "NVRM: Xid (PCI:0000:00:00): "}) {
    CAPTURE(piece);
    CHECK_NOTHROW(scan_text(piece));
  }
}

TEST_CASE("hostile: long lines are cut, not quadratic") {
  std::string anchors;
  while (anchors.size() < 8u << 20) anchors += "]: segfault at x[1]: unhandled NVRM: Xid (Killed process 1 (";
  anchors += '\n';
  CHECK(seconds_to_scan(anchors) < 2.0);
  auto lines = split_kernel_log(anchors);
  REQUIRE(lines.size() == 1);
  CHECK(lines.front().message.size() == 64u * 1024);

  std::string brackets(8u << 20, '[');
  CHECK(seconds_to_scan(brackets) < 2.0);
  std::string json = "{\"MESSAGE\":" + std::string(60000, '[') + "}\n";
  CHECK(seconds_to_scan(json) < 2.0);
}

TEST_CASE("hostile: many reports and rows stay bounded") {
  std::string text;
  for (int i = 0; i < 20000; ++i) {
    text += "p invoked oom-killer: gfp_mask=0x0, order=0, oom_score_adj=0\n";
    text += "[  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name\n";
    text += "[      1]     0     1        1        1        1        0             0 p\n";
  }
  for (int i = 0; i < 20000; ++i) text += "Tasks in /a are going to be killed due to memory.oom.group set\n";
  for (int i = 0; i < 20000; ++i) text += "Memory cgroup out of memory: Killed process 1 (p) total-vm:1kB, anon-rss:1kB, file-rss:0kB\n";
  for (int i = 0; i < 20000; ++i) text += "oom_reaper: reaped process 1 (p), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB\n";
  // A guard against super-linear work, not a benchmark: the fastest of three
  // runs, so a loaded machine (a sanitized build beside other tests) does not
  // read as a quadratic scan.
  CHECK(std::min({seconds_to_scan(text), seconds_to_scan(text), seconds_to_scan(text)}) < 5.0);
  CHECK(scan_for<OomKill>(text).size() == 20000u);
}
