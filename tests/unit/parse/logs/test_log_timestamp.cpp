// The timestamp that opens a log line, in the forms launchers, loggers,
// Slurm, syslog and glog print, and the lines that only look like one.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <string_view>

#include "parse/logs/log_timestamp.h"

using ftdiag::parse::LogTimestamp;
using ftdiag::parse::read_log_timestamp;
using ftdiag::parse::seconds_in_year;

namespace {

// 2024-05-08T08:47:31Z, computed independently (calendar.timegm).
constexpr double kMay8 = 1715158051;

// The seconds since the epoch of a line's stamp; a missing or yearless
// stamp fails the calling check.
double seconds_of(std::string_view line) {
  const auto stamp = read_log_timestamp(line);
  REQUIRE_MESSAGE(stamp.has_value(), "no timestamp in: " << line);
  CHECK_FALSE(stamp->month_day_only);
  return stamp->seconds;
}

// The message after the stamp.
std::string_view rest_of(std::string_view line) {
  const auto stamp = read_log_timestamp(line);
  REQUIRE(stamp.has_value());
  return line.substr(stamp->end);
}

}  // namespace

TEST_CASE("log timestamp: dated forms read as UTC, fractions kept") {
  CHECK(seconds_of("[2024-05-08 08:47:31,261] torch.distributed.elastic.multiprocessing.api: [WARNING] x") ==
        doctest::Approx(kMay8 + 0.261));
  CHECK(seconds_of("2024-05-08 08:47:31.123 INFO worker.py:1660 -- Connecting") == doctest::Approx(kMay8 + 0.123));
  CHECK(seconds_of("2024-05-08T08:47:31Z job started") == kMay8);
  CHECK(seconds_of("2024-05-08T08:47:31.500000000Z") == doctest::Approx(kMay8 + 0.5));
  CHECK(seconds_of("[2024-05-08T08:47:31.123] error: Detected 1 oom_kill event") == doctest::Approx(kMay8 + 0.123));
  CHECK(seconds_of("[INFO|2025-04-30 22:55:57] llamafactory.train.callbacks:143 >> {'loss': 1.4}") == 1746053757);
  CHECK(seconds_of("02/16/2024 00:04:11 - INFO - llmtuner.extras.callbacks - {'loss': 0.95}") == 1708041851);
  CHECK(seconds_of("2024-02-29 00:00:00 leap day") == 1709164800);
}

TEST_CASE("log timestamp: a printed offset is applied, in each spelling") {
  CHECK(seconds_of("2024-05-08T08:47:31+02:00 x") == kMay8 - 7200);
  CHECK(seconds_of("2024-05-08T08:47:31+0200 x") == kMay8 - 7200);
  CHECK(seconds_of("2024-05-08T08:47:31-05 x") == kMay8 + 5 * 3600);
  CHECK(seconds_of("2024-05-08 08:47:31,261 - INFO - trainer") == doctest::Approx(kMay8 + 0.261));  // " - " is no offset
  CHECK(read_log_timestamp("2024-05-08T08:47:31+02:00 x")->offset_seconds == 7200);
}

TEST_CASE("log timestamp: after a short bracketed prefix") {
  CHECK(seconds_of("[rank3]: 2024-05-08 08:47:31,000 x") == kMay8);
  CHECK(seconds_of("[default0]:[2024-05-08 08:47:31,000] [INFO] x") == kMay8);
  CHECK(seconds_of("[INFO|trainer.py:3388] 2024-05-09 17:10:17,795 >> Saving model checkpoint to /tmp/x") ==
        doctest::Approx(1715274617.795));
  CHECK(rest_of("[2024-05-08 08:47:31,261] [INFO] x") == " [INFO] x");
  CHECK(rest_of("[rank3]: 2024-05-08T08:47:31Z message") == " message");
  constexpr char kNuls[] = "\0\0 2024-05-08 08:47:31 after NULs";  // PyTorch's worker handler writes a NUL
  CHECK(rest_of(std::string_view(kNuls, sizeof(kNuls) - 1)) == " after NULs");
}

TEST_CASE("log timestamp: yearless forms are flagged month-day only and complete with a year") {
  const auto syslog = read_log_timestamp("May  8 08:47:31 node1 kernel: Out of memory: Killed process 629");
  REQUIRE(syslog);
  CHECK(syslog->month_day_only);
  CHECK(syslog->month == 5);
  CHECK(syslog->day == 8);
  CHECK(seconds_in_year(*syslog, 2024) == kMay8);
  CHECK(read_log_timestamp("Dec 24 23:59:59 host x")->day == 24);
  CHECK(read_log_timestamp("May 8 08:47:31 host x")->day == 8);  // rsyslog templates that do not pad

  const auto glog = read_log_timestamp("W0508 08:47:31.366000 32974 torch/distributed/elastic/multiprocessing/api.py:900] x");
  REQUIRE(glog);
  CHECK(glog->month_day_only);
  CHECK(seconds_in_year(*glog, 2024) == doctest::Approx(kMay8 + 0.366));
  CHECK(rest_of("E0801 13:23:20.000000 32974 api.py:874] failed") == " 32974 api.py:874] failed");

  // c10's own glog rendering: nanoseconds, the file where glog puts the thread.
  const auto c10 = read_log_timestamp("[rank1]:[E1003 18:37:01.833637681 ProcessGroupNCCL.cpp:621] [Rank 1] Watchdog");
  REQUIRE(c10);
  CHECK(c10->month == 10);
  CHECK(c10->seconds_of_day == doctest::Approx(18 * 3600 + 37 * 60 + 1.833637681));

  const auto leap = read_log_timestamp("Feb 29 00:00:00 host x");
  REQUIRE(leap);
  CHECK(seconds_in_year(*leap, 2024) == 1709164800);
  CHECK_FALSE(seconds_in_year(*leap, 2023));
}

TEST_CASE("log timestamp: lines that are not timestamped") {
  for (const char* line : {
           " 12%|#2        | 120/1000 [00:12<01:40,  8.80it/s]",  // tqdm: elapsed<remaining
           "[00:12<01:40, 8.80it/s]",
           "08:47:31 no date",
           "0521 18:06:31.916000 2915962 api.py:897] glog without its severity letter",
           "W0801 13:23:17 32974 api.py:900] glog without its fraction",
           "2024-13-08 08:47:31 month 13",
           "2023-02-29 08:47:31 no 29 February in 2023",
           "2024-05-08 24:00:00 hour 24",
           "2024-05-08 08:47:3123 runs on into digits",
           "[2024-05-08 08:47:31 unclosed bracket",
           "2024-05-08 date only",
           "Mayo 8 08:47:31 not a month",
           "{'loss': 0.95, 'epoch': 2024}",
           "[a very long bracketed prefix that is not a rank or a logger] 2024-05-08 08:47:31",
           "",
           "[",
       }) {
    CAPTURE(line);
    CHECK_FALSE(read_log_timestamp(line));
  }
}

TEST_CASE("log timestamp: hostile bytes end quickly and safely") {
  std::string noise(1u << 20, '[');
  CHECK_FALSE(read_log_timestamp(noise));
  const std::string cut = "[2024-05-08 08:47:31,26";
  for (std::size_t n = 0; n <= cut.size(); ++n) CHECK_FALSE(read_log_timestamp(cut.substr(0, n)));
  CHECK(seconds_of("2024-05-08 08:47:31,2619999999999999999 x") == doctest::Approx(kMay8 + 0.262));  // cut, not refused
  CHECK_FALSE(read_log_timestamp("2024-05-08 08:47:31," + std::string(100, '9')));
  CHECK(seconds_of("2024-05-08 08:47:31\xff\xfe invalid UTF-8 after") == kMay8);
}
