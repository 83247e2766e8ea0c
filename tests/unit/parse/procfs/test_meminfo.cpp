#include <doctest/doctest.h>

#include "parse/procfs/meminfo.h"
#include "unit/parse/parse_fixtures.h"

using namespace ftdiag;
using namespace ftdiag::parse;
using ftdiag::parse::testing::fixture_text;

TEST_CASE("parse_meminfo: a 6.18 kernel") {
  auto info = parse_meminfo(fixture_text("proc-files/meminfo-6.18"));
  REQUIRE(info);
  CHECK(info->mem_total == 24683656ULL * 1024);
  CHECK(info->mem_free == 23752468ULL * 1024);
  CHECK(info->mem_available == 23870164ULL * 1024);
  CHECK(info->buffers == 4144ULL * 1024);
  CHECK(info->cached == 315868ULL * 1024);
  CHECK(info->shmem == 8924ULL * 1024);
  CHECK(info->swap_total == 0);
  CHECK(info->swap_free == 0);
  CHECK(info->commit_limit == 12341828ULL * 1024);
  CHECK(info->committed_as == 561892ULL * 1024);
}

TEST_CASE("parse_meminfo: kernels before 3.14 have no MemAvailable") {
  auto info = parse_meminfo(
      "MemTotal:        8062148 kB\nMemFree:          512000 kB\nBuffers:          102400 kB\n"
      "Cached:          2048000 kB\nSwapCached:            0 kB\n");
  REQUIRE(info);
  CHECK(info->mem_total == 8062148ULL * 1024);
  CHECK_FALSE(info->mem_available.has_value());
  CHECK_FALSE(info->commit_limit.has_value());
}

TEST_CASE("parse_meminfo: overflow and bad units leave the field absent") {
  auto info = parse_meminfo(
      "MemTotal:       18014398509481984 kB\nMemFree: 100 MB\nCached:\nBuffers: 7 kB\n"
      "HugePages_Total:       0\n");
  REQUIRE(info);
  CHECK_FALSE(info->mem_total.has_value());
  CHECK_FALSE(info->mem_free.has_value());
  CHECK_FALSE(info->cached.has_value());
  CHECK(info->buffers == 7 * 1024);
}

TEST_CASE("parse_meminfo: nothing recognisable is unparseable") {
  for (std::string_view text : {"", "\n", "MemTotal", "MemTotal: lots\n", "\x01\x02\xff"}) {
    auto info = parse_meminfo(text);
    REQUIRE_FALSE(info);
    CHECK(info.missing().reason == MissingReason::unparseable);
  }
}
