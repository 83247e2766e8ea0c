#include <doctest/doctest.h>

#include "parse/procfs/cgroup_files.h"
#include "unit/parse/parse_fixtures.h"

using namespace ftdiag;
using namespace ftdiag::parse;
using ftdiag::parse::testing::fixture_text;

TEST_CASE("parse_u64_or_max: bytes, v2 \"max\" and v1's page-rounded unlimited") {
  CHECK(parse_u64_or_max("104857600\n") == Fact<std::optional<std::uint64_t>>(104857600ULL));
  CHECK(parse_u64_or_max("0") == Fact<std::optional<std::uint64_t>>(0ULL));
  CHECK(parse_u64_or_max("max\n") == Fact<std::optional<std::uint64_t>>(std::nullopt));
  // 4 KiB pages (x86_64) and 64 KiB pages (arm64 GH200 kernels).
  CHECK(parse_u64_or_max("9223372036854771712\n") == Fact<std::optional<std::uint64_t>>(std::nullopt));
  CHECK(parse_u64_or_max("9223372036854710272\n") == Fact<std::optional<std::uint64_t>>(std::nullopt));
  CHECK(parse_u64_or_max("9223372036854710271") ==
        Fact<std::optional<std::uint64_t>>(9223372036854710271ULL));
}

TEST_CASE("parse_u64_or_max: anything else is unparseable") {
  for (std::string_view text : {"", "\n", "MAX", "-1", "12 kB", "1 2", "18446744073709551616", "maxx"}) {
    CAPTURE(text);
    auto value = parse_u64_or_max(text);
    REQUIRE_FALSE(value);
    CHECK(value.missing().reason == MissingReason::unparseable);
  }
}

TEST_CASE("parse_u64: one number or unparseable") {
  CHECK(parse_u64("463\n") == Fact<std::uint64_t>(463ULL));
  CHECK(parse_u64("18446744073709551615") == Fact<std::uint64_t>(18446744073709551615ULL));
  CHECK_FALSE(parse_u64("18446744073709551616"));
  CHECK_FALSE(parse_u64("max"));
  CHECK_FALSE(parse_u64(""));
}

TEST_CASE("parse_flat_keyed: memory.events with every 6.x key") {
  auto events = parse_flat_keyed(fixture_text("cgroup-v2/sys/fs/cgroup/user.slice/job.scope/memory.events"));
  REQUIRE(events);
  CHECK(events->at("max") == 1873);
  CHECK(events->at("oom") == 4);
  CHECK(events->at("oom_kill") == 2);
  CHECK(events->at("oom_group_kill") == 0);
}

TEST_CASE("parse_flat_keyed: v1 oom_control and memory.stat") {
  auto control = parse_flat_keyed(fixture_text("cgroup-v1/sys/fs/cgroup/memory/jobs/a/memory.oom_control"));
  REQUIRE(control);
  CHECK(control->size() == 3);
  CHECK(control->at("oom_kill") == 1);
  auto stat = parse_flat_keyed(fixture_text("cgroup-v1/sys/fs/cgroup/memory/jobs/a/memory.stat"));
  REQUIRE(stat);
  CHECK(stat->at("total_rss") == 104525824);
  CHECK(stat->at("hierarchical_memsw_limit") == 9223372036854771712ULL);
}

TEST_CASE("parse_flat_keyed: bad lines drop only their key") {
  auto values = parse_flat_keyed("a 1\nb -4096\nc 99999999999999999999\nd\ne 1 2\nf 6\r\n");
  REQUIRE(values);
  CHECK(values->size() == 2);
  CHECK(values->at("a") == 1);
  CHECK(values->at("f") == 6);  // a CRLF-damaged line still reads
}

TEST_CASE("parse_flat_keyed: nothing valid is unparseable") {
  for (std::string_view text : {"", "\n\n", "some avg10=0.00 avg60=0.00", "k v"}) {
    CAPTURE(text);
    auto values = parse_flat_keyed(text);
    REQUIRE_FALSE(values);
    CHECK(values.missing().reason == MissingReason::unparseable);
  }
}

TEST_CASE("parse_cgroup_procs: one pid a line, anything else is unparseable") {
  CHECK(parse_cgroup_procs("") == Fact<std::vector<int>>(std::vector<int>{}));
  CHECK(parse_cgroup_procs("12\n345\n") == Fact<std::vector<int>>(std::vector<int>{12, 345}));
  CHECK(parse_cgroup_procs("12\n\n7") == Fact<std::vector<int>>(std::vector<int>{12, 7}));
  for (std::string_view bad : {"x\n", "12 13\n", "-1\n", "0\n", "99999999999\n"}) {
    auto parsed = parse_cgroup_procs(bad);
    REQUIRE_FALSE(parsed);
    CHECK(parsed.missing().reason == MissingReason::unparseable);
  }
}
