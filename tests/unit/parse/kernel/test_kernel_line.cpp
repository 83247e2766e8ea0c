// The renderings of the kernel log, line by line (log-formats.md §1.4, App. B).
#include <doctest/doctest.h>

#include "kernel_fixtures.h"

using namespace ftdiag::parse;
using namespace ftdiag::parse::testing;

namespace {

KernelLine only_line(std::string_view text) {
  auto lines = split_kernel_log(text);
  REQUIRE_MESSAGE(lines.size() == 1, text);
  return lines.front();
}

}  // namespace

TEST_CASE("kmsg: a record, its escapes and its device properties") {
  auto line = decode_kmsg_record("11,654,546016833,-;research-probe: prio3 \\x5c backslash and tab\\x09here\n SUBSYSTEM=pci\n DEVICE=+pci:0000:3b:00.0\n");
  REQUIRE(line);
  CHECK(line->message == "research-probe: prio3 \\ backslash and tab\there");
  CHECK(line->stamp.level == 3);
  CHECK(line->stamp.facility == 1);
  CHECK(line->stamp.sequence == 654u);
  CHECK(line->stamp.monotonic_us == 546016833);

  auto caller = decode_kmsg_record("6,1234,5678,-,caller=T42;hello\\x00world");
  REQUIRE(caller);
  CHECK(caller->stamp.caller == "T42");
  CHECK(caller->message == "hello world");

  CHECK_FALSE(decode_kmsg_record("[  241.674752] not kmsg"));
  CHECK_FALSE(decode_kmsg_record("3,502,241674752-;missing comma"));
  CHECK_FALSE(decode_kmsg_record(""));

  auto lines = split_kernel_log("6,1,2,-;one\n SUBSYSTEM=pci\n DEVICE=+pci:0000:3b:00.0\n6,2,3,c;two\\x0athree\n");
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].message == "one");
  CHECK(lines[1].message == "two");
  CHECK(lines[2].message == "three");
  CHECK(lines[2].stamp.sequence == 2u);
  CHECK(lines[2].line_number == 4);
}

TEST_CASE("dmesg: the capture of every time format") {
  auto lines = split_kernel_log(kernel_fixture("dmesg-output-variants.txt"));
  int kills = 0;
  for (const auto& line : lines) {
    if (line.message.starts_with("Memory cgroup out of memory: Killed process 5165 (python3) total-vm:119004kB")) ++kills;
  }
  CHECK(kills == 11);  // dmesg, -T, iso, reltime, delta, notime, -x, -r, -l err, -J, kmsg
  CHECK(events_of<OomKill>(scan_kernel_lines(lines)).size() == 11);
}

TEST_CASE("dmesg: prefixes") {
  CHECK(only_line("[  241.674752] msg").stamp.monotonic_us == 241674752);
  CHECK(only_line("[16450076.435595] msg").stamp.monotonic_us == 16450076435595);
  CHECK(only_line("[    0.000000] msg").stamp.monotonic_us == 0);
  CHECK(only_line("<3>[  241.674752] msg").stamp.level == 3);
  CHECK(only_line("<14>[  241.674752] msg").stamp.facility == 1);
  CHECK(only_line("kern  :err   : [  241.674752] msg").stamp.level == 3);
  CHECK(only_line("user  :warn  : [  546.016803] research-probe: first line").stamp.facility == 1);
  CHECK(only_line("[  241.674752][ T5165] msg").stamp.caller == "T5165");
  CHECK(only_line("[  241.674752] [C3] msg").stamp.caller == "C3");
  CHECK(only_line("[  241.674752][ T5165] msg").message == "msg");
  CHECK(only_line("[  +0.000016] msg").message == "msg");
  CHECK(only_line("[<    0.000016>] msg").message == "msg");
  CHECK(only_line("[Di Aug 12 03:54:03 2025] memory: usage 1kB").message == "memory: usage 1kB");
  // Not stamps: a stamp-less task-table row and a call-trace frame keep their text.
  CHECK(only_line("[   5165]     0  5165 python3").message == "[   5165]     0  5165 python3");
  CHECK(only_line("[<ffffffff816861ac>] dump_stack+0x19/0x1b").message == "[<ffffffff816861ac>] dump_stack+0x19/0x1b");
  CHECK_FALSE(only_line("[   5165]     0  5165 python3").stamp.monotonic_us);
}

TEST_CASE("dmesg: continuation lines of a multi-line record keep its stamp") {
  auto lines = split_kernel_log("[  10.000001] Memory cgroup stats for /a:\n[  10.000002] anon 1\n      file 2\n\tshmem 3\n[  10.000003] next\n");
  REQUIRE(lines.size() == 5);
  CHECK(lines[2].message == "file 2");
  CHECK(lines[2].stamp.monotonic_us == 10000002);
  CHECK(lines[3].message == "shmem 3");
  CHECK(lines[4].message == "next");
}

TEST_CASE("journal and syslog: kernel lines kept, other programs dropped") {
  auto lines = split_kernel_log(
      "-- Boot 4f2e1d --\n"
      "Dec 14 17:13:12 host kernel: python3 invoked oom-killer: x\n"
      "Dec 14 17:13:12 host systemd[1]: run-u820.service: Failed with result 'oom-kill'.\n"
      "      continuation of the systemd line\n"
      "Apr 01 14:13:32 mysrv kernel:Out of memory: no space\n"
      "Dec  4 01:02:03 host kernel: [  818.356297] with printk time\n"
      "2024-12-14T17:13:12+0000 host kernel: short-iso\n"
      "2024-05-01T12:00:00.123456+00:00 host rsyslogd: [origin software=\"rsyslogd\"] start\n"
      "[  241.674752] host kernel: short-monotonic\n"
      "[  241.674800] host systemd-oomd[700]: Killed /user.slice due to memory pressure\n"
      "{\"_TRANSPORT\":\"stdout\",\"MESSAGE\":\"Killed process 1 (x) total-vm:1kB\"}\n"
      "{\"_TRANSPORT\":\"kernel\",\"MESSAGE\":\"from json\",\"PRIORITY\":\"6\",\"_SOURCE_MONOTONIC_TIMESTAMP\":\"5\"}\n");
  REQUIRE(lines.size() == 6);
  CHECK(lines[0].message == "python3 invoked oom-killer: x");
  CHECK(lines[1].message == "Out of memory: no space");
  CHECK(lines[2].message == "with printk time");
  CHECK(lines[2].stamp.monotonic_us == 818356297);
  CHECK(lines[2].stamp.wall_time.has_value());
  CHECK(lines[3].message == "short-iso");
  CHECK(lines[4].message == "short-monotonic");
  CHECK(lines[4].stamp.monotonic_us == 241674752);
  CHECK(lines[5].message == "from json");
  CHECK(lines[5].stamp.level == 6);
  CHECK(lines[5].stamp.monotonic_us == 5);
}

TEST_CASE("bare messages, \\r breaks, NUL and blank lines") {
  auto lines = split_kernel_log("a b) (c invoked oom-killer: x\r\nprogress 10%\rprogress 20%\nnul\0here\n\n   \n", {});
  REQUIRE(lines.size() == 4);
  CHECK(lines[0].message == "a b) (c invoked oom-killer: x");
  CHECK_FALSE(lines[0].stamp.monotonic_us);
  CHECK(lines[1].message == "progress 10%");
  CHECK(lines[2].message == "progress 20%");
  CHECK(lines[1].line_number == 2);
  CHECK(lines[2].line_number == 2);
  std::string nul("nul");
  nul += '\0';
  nul += "here\n";
  CHECK(only_line(nul).message == "nul here");
}

TEST_CASE("dmesg -J: pretty-printed and one object per line") {
  auto lines = split_kernel_log(
      "{\n   \"dmesg\": [\n      {\n         \"pri\": 3,\n         \"time\":   241.674752,\n"
      "         \"msg\": \"a \\\"quoted\\\" \\u0041 and\\nsecond\"\n      },{\n"
      "         \"fac\": \"user\",\n         \"pri\": \"warn\",\n         \"time\": 1.5,\n         \"caller\": \"T9\",\n"
      "         \"msg\": \"user line\"\n      }\n   ]\n}\n"
      "{ \"pri\": 6, \"time\": 2.000001, \"msg\": \"single\" },\n");
  REQUIRE(lines.size() == 4);
  CHECK(lines[0].message == "a \"quoted\" A and");
  CHECK(lines[1].message == "second");
  CHECK(lines[1].stamp.monotonic_us == 241674752);
  CHECK(lines[1].stamp.level == 3);
  CHECK(lines[2].message == "user line");
  CHECK(lines[2].stamp.facility == 1);
  CHECK(lines[2].stamp.level == 4);
  CHECK(lines[2].stamp.caller == "T9");
  CHECK(lines[3].message == "single");
  CHECK(lines[3].stamp.monotonic_us == 2000001);
}

TEST_CASE("userspace writes to /dev/kmsg keep their facility") {
  auto lines = split_kernel_log(kernel_fixture("kmsg-userspace-write-and-escaping.txt"));
  bool escaped = false;
  for (const auto& line : lines) {
    if (line.stamp.sequence == 654u) {
      escaped = true;
      CHECK(line.message == "research-probe: prio3 \\ backslash and tab\there");
      CHECK(line.stamp.facility == 1);
    }
  }
  CHECK(escaped);
}
