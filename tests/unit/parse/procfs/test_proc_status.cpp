#include <doctest/doctest.h>

#include "parse/procfs/proc_status.h"
#include "unit/parse/parse_fixtures.h"

using namespace ftdiag;
using namespace ftdiag::parse;
using ftdiag::parse::testing::fixture_text;

TEST_CASE("parse_proc_status: a python3 training process") {
  auto status = parse_proc_status(fixture_text("cgroup-v1/proc/4242/status"));
  REQUIRE(status);
  CHECK(status->name == "python3");
  CHECK(status->state == 'R');
  CHECK(status->tgid == 4242);
  CHECK(status->ppid == 4240);
  CHECK(status->nspid == std::vector<int>{4242});
  CHECK(status->threads == 1);
  CHECK(status->vm_rss == 64708ULL * 1024);
  CHECK(status->rss_anon == 58100ULL * 1024);
  CHECK(status->rss_file == 6608ULL * 1024);
  CHECK(status->rss_shmem == 0);
  CHECK(status->vm_hwm == 64708ULL * 1024);
  CHECK(status->vm_swap == 0);
  CHECK(status->vm_size == 67772ULL * 1024);
}

TEST_CASE("parse_proc_status: NSpid lists every namespace level, outermost first") {
  auto status = parse_proc_status(fixture_text("proc-files/status-in-pid-namespace"));
  REQUIRE(status);
  CHECK(status->nspid == std::vector<int>{4242, 17});
}

TEST_CASE("parse_proc_status: a kernel thread has no memory lines") {
  auto status = parse_proc_status(fixture_text("proc-files/status-kthreadd"));
  REQUIRE(status);
  CHECK(status->name == "kthreadd");
  CHECK(status->ppid == 0);
  CHECK_FALSE(status->vm_rss.has_value());
  CHECK_FALSE(status->vm_size.has_value());
  CHECK_FALSE(status->rss_anon.has_value());
}

TEST_CASE("parse_proc_status: the comm keeps spaces and undoes the kernel's escapes") {
  auto status = parse_proc_status("Name:\t a\\nb\\\\c \nState:\tS (sleeping)\n");
  REQUIRE(status);
  CHECK(status->name == " a\nb\\c ");
  CHECK(status->state == 'S');
}

TEST_CASE("parse_proc_status: a value that overflows 64 bits leaves that field absent") {
  auto status = parse_proc_status(
      "Name:\tx\nVmRSS:\t18446744073709551615 kB\nVmSize:\t99999999999999999999999 kB\nVmHWM:\t1 kB\n");
  REQUIRE(status);
  CHECK_FALSE(status->vm_rss.has_value());
  CHECK_FALSE(status->vm_size.has_value());
  CHECK(status->vm_hwm == 1024);
}

TEST_CASE("parse_proc_status: text without a known key is unparseable") {
  for (std::string_view text : {"", "\n\n", "garbage", "Foo:\tbar\n", "VmRSS:\tlots kB\n"}) {
    auto status = parse_proc_status(text);
    REQUIRE_FALSE(status);
    CHECK(status.missing().reason == MissingReason::unparseable);
  }
}

TEST_CASE("parse_proc_status: a truncated file keeps what was complete") {
  auto status = parse_proc_status("Name:\tpython3\nState:\tR (running)\nTgid:\t42\nVmRSS:\t  12");
  REQUIRE(status);
  CHECK(status->tgid == 42);
  CHECK_FALSE(status->vm_rss.has_value());  // "12" without "kB" was cut short
}
