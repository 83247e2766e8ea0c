#include <doctest/doctest.h>

#include "parse/procfs/proc_cmdline.h"
#include "parse/procfs/proc_stat.h"
#include "parse/procfs/proc_statm.h"
#include "unit/parse/parse_fixtures.h"

using namespace ftdiag;
using namespace ftdiag::parse;
using ftdiag::parse::testing::fixture_text;

TEST_CASE("parse_proc_stat: a real 52-field record") {
  auto stat = parse_proc_stat(fixture_text("cgroup-v1/proc/4242/stat"));
  REQUIRE(stat);
  CHECK(stat->pid == 4242);
  CHECK(stat->comm == "python3");
  CHECK(stat->state == 'R');
  CHECK(stat->ppid == 4240);
  CHECK(stat->pgrp == 4240);
  CHECK(stat->session == 2315);
  CHECK(stat->start_time_ticks == 40308);
  CHECK(stat->exit_code == 0);
}

TEST_CASE("parse_proc_stat: a comm with spaces and parentheses splits at the last ')'") {
  auto stat = parse_proc_stat(fixture_text("process-tree/proc/202/stat"));
  REQUIRE(stat);
  CHECK(stat->comm == "python3) S 1 (x");
  CHECK(stat->state == 'S');
  CHECK(stat->ppid == 200);
}

TEST_CASE("parse_proc_stat: a zombie carries its wait status in field 52") {
  auto stat = parse_proc_stat(fixture_text("process-tree/proc/204/stat"));
  REQUIRE(stat);
  CHECK(stat->state == 'Z');
  CHECK(stat->exit_code == 9);
}

TEST_CASE("parse_proc_stat: kernels before 3.5 end at field 44 without exit_code") {
  auto stat = parse_proc_stat(
      "1 (init) S 0 1 1 0 -1 4202752 6155 1372640 25 1045 24 118 3093 1271 20 0 1 0 6 "
      "19963904 402 18446744073709551615 1 1 0 0 0 0 0 4096 536962595 18446744073709551615 "
      "0 0 17 1 0 0 3 0 0\n");
  REQUIRE(stat);
  CHECK(stat->pid == 1);
  CHECK(stat->start_time_ticks == 6);
  CHECK_FALSE(stat->exit_code.has_value());
}

TEST_CASE("parse_proc_stat: truncated, garbled or overflowing records are unparseable") {
  for (std::string_view text : {
           "", "4242", "4242 (python3", "4242 python3) R 1 1 1", "4242 (python3) R 4240 4240 2315 0",
           "x (a) R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0",
           "99999999999 (a) R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0",
           "1 (a) R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99999999999999999999999 0 0",
           "1 (a) RR 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0", ")(", "1 )a( R"}) {
    CAPTURE(text);
    auto stat = parse_proc_stat(text);
    REQUIRE_FALSE(stat);
    CHECK(stat.missing().reason == MissingReason::unparseable);
  }
}

TEST_CASE("parse_proc_statm: page counts become bytes") {
  auto statm = parse_proc_statm(fixture_text("cgroup-v1/proc/4242/statm"), 4096);
  REQUIRE(statm);
  CHECK(statm->size == 16943ULL * 4096);
  CHECK(statm->resident == 16177ULL * 4096);
  CHECK(statm->shared == 1652ULL * 4096);
  auto arm64 = parse_proc_statm("10 5 2 1 0 3 0\n", 65536);
  REQUIRE(arm64);
  CHECK(arm64->resident == 5ULL * 65536);
}

TEST_CASE("parse_proc_statm: short, garbled or overflowing text is unparseable") {
  for (std::string_view text : {"", "1 2", "a b c", "1 2 -3", "18446744073709551615 1 1"}) {
    CAPTURE(text);
    auto statm = parse_proc_statm(text, 4096);
    REQUIRE_FALSE(statm);
    CHECK(statm.missing().reason == MissingReason::unparseable);
  }
}

TEST_CASE("parse_proc_cmdline: NUL separated, trailing NUL optional, empty args kept") {
  using V = std::vector<std::string>;
  CHECK(parse_proc_cmdline(std::string_view("a\0b\0", 4)) == V{"a", "b"});
  CHECK(parse_proc_cmdline(std::string_view("a\0b", 3)) == V{"a", "b"});
  CHECK(parse_proc_cmdline(std::string_view("a\0\0b\0", 5)) == V{"a", "", "b"});
  CHECK(parse_proc_cmdline(std::string_view("\0", 1)) == V{""});
  CHECK(parse_proc_cmdline("") == V{});
  CHECK(parse_proc_cmdline("python3 train.py --rewritten") == V{"python3 train.py --rewritten"});
}
