// Every parser must survive arbitrary bytes: no crash, no throw, and either a
// value or Missing(unparseable). Deterministic so a failure reproduces.
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "parse/procfs/cgroup_files.h"
#include "parse/procfs/meminfo.h"
#include "parse/procfs/mountinfo.h"
#include "parse/procfs/proc_cgroup.h"
#include "parse/procfs/proc_cmdline.h"
#include "parse/procfs/proc_stat.h"
#include "parse/procfs/proc_statm.h"
#include "parse/procfs/proc_status.h"
#include "unit/parse/parse_fixtures.h"

using namespace ftdiag;
using namespace ftdiag::parse;
using ftdiag::parse::testing::fixture_text;

namespace {

template <class T>
void check_missing_is_unparseable(const Fact<T>& fact) {
  if (!fact) CHECK(fact.missing().reason == MissingReason::unparseable);
}

// parse_proc_cmdline is total: its arguments joined by NULs give the text
// back, less one trailing NUL (empty text: no arguments).
void check_cmdline_round_trip(std::string_view text) {
  const auto args = parse_proc_cmdline(text);
  std::string joined;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i > 0) joined.push_back('\0');
    joined += args[i];
  }
  std::string_view expected = text;
  if (!expected.empty() && expected.back() == '\0') expected.remove_suffix(1);
  CHECK(joined == expected);
  if (text.empty()) CHECK(args.empty());
}

void parse_everything(std::string_view text) {
  check_missing_is_unparseable(parse_proc_status(text));
  check_missing_is_unparseable(parse_proc_stat(text));
  check_missing_is_unparseable(parse_proc_statm(text, 4096));
  check_missing_is_unparseable(parse_proc_statm(text, UINT64_MAX));
  check_missing_is_unparseable(parse_meminfo(text));
  check_missing_is_unparseable(parse_proc_cgroup(text));
  check_missing_is_unparseable(parse_mountinfo(text));
  check_missing_is_unparseable(parse_u64_or_max(text));
  check_missing_is_unparseable(parse_flat_keyed(text));
  check_cmdline_round_trip(text);
}

// Bytes biased toward the characters the parsers split on.
std::string random_text(std::mt19937& rng, std::size_t length) {
  static constexpr std::string_view kAlphabet = "0123456789 \t\n:()-/,\\kBmax\0\xff";
  std::string text;
  std::uniform_int_distribution<int> any(0, 255), pick(0, kAlphabet.size() - 1), coin(0, 1);
  for (std::size_t i = 0; i < length; ++i) {
    text.push_back(coin(rng) ? kAlphabet[pick(rng)] : static_cast<char>(any(rng)));
  }
  return text;
}

}  // namespace

TEST_CASE("procfs parsers: random bytes") {
  std::mt19937 rng(20240611);
  for (int round = 0; round < 3000; ++round) {
    parse_everything(random_text(rng, static_cast<std::size_t>(round % 300)));
  }
}

TEST_CASE("procfs parsers: every prefix of real files (truncated reads)") {
  for (const char* file : {"cgroup-v1/proc/4242/status", "cgroup-v1/proc/4242/stat",
                           "cgroup-v1/proc/self/mountinfo", "proc-files/meminfo-6.18",
                           "cgroup-v1/proc/4242/cgroup",
                           "cgroup-v2/sys/fs/cgroup/user.slice/job.scope/memory.stat"}) {
    auto text = fixture_text(file);
    REQUIRE_FALSE(text.empty());
    for (std::size_t n = 0; n <= text.size(); n += 7) parse_everything(std::string_view(text).substr(0, n));
  }
}

TEST_CASE("procfs parsers: huge numbers never wrap") {
  std::string huge(400, '9');
  parse_everything(huge);
  auto status = parse_proc_status("Name:\tx\nVmRSS:\t" + huge + " kB\nThreads:\t" + huge + "\n");
  REQUIRE(status);
  CHECK_FALSE(status->vm_rss.has_value());
  CHECK_FALSE(status->threads.has_value());
  auto meminfo = parse_meminfo("MemTotal: 18446744073709551615 kB\nMemFree: 1 kB\n");
  REQUIRE(meminfo);
  CHECK_FALSE(meminfo->mem_total.has_value());
  CHECK_FALSE(parse_proc_statm("4503599627370496 1 1", 4096));
}
