// Reads the timestamp at the start of a log line, so lines of several logs
// (a console, a Slurm output file, the launcher's, syslog) can be put in one
// order. The common forms:
//
//   [2024-05-08 08:47:31,261]          Python logging, DeepSpeed, torch 2.2-2.3
//   2024-05-08 08:47:31.123            plain ISO date and time (Ray, many loggers)
//   2024-05-08T08:47:31.123456Z        ISO 8601 with T, Z or an offset (+02:00, +0200)
//   [2024-05-08T08:47:31.123]          slurmd, slurmstepd
//   [INFO|2025-04-30 22:55:57]         LLaMA-Factory's logger
//   05/08/2024 08:47:31                Hugging Face example scripts (%m/%d/%Y)
//   May  8 08:47:31                    syslog: no year
//   W0801 13:23:17.366000 32974 ...]   glog (torch 2.4+ elastic, c10d): no year
//
// also after one short bracketed prefix such as "[rank3]: ", "[default0]:" or
// "[INFO|trainer.py:3388] ". A tqdm bar's "[00:12<01:40, 3.2it/s]" is no
// timestamp (no date), nor is a bare "08:47:31".
//
// Times are returned in seconds since the epoch, read as UTC unless the line
// gives an offset. Most logs print local time without saying so; taking it as
// UTC shifts every line of one host by the same amount, which keeps their
// order and the gaps between them (all ordering within one host needs). Only
// a comparison across hosts in different zones, or across a DST change,
// would need the zone, and no such line carries it.
//
// Pure, total and bounded: never throws, looks at no more than the first few
// dozen bytes of the line, whatever its length or content.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace ftdiag::parse {

struct LogTimestamp {
  // Seconds since 1970-01-01T00:00:00Z, fraction included. Meaningless (0)
  // when month_day_only: complete those with seconds_in_year().
  double seconds = 0;
  // syslog and glog print no year: month, day and time only.
  bool month_day_only = false;
  int month = 0;  // 1-12, as printed
  int day = 0;    // 1-31, as printed
  // Seconds since midnight as printed (before any offset is applied).
  double seconds_of_day = 0;
  // The printed UTC offset in seconds (east positive); 0 when none.
  int offset_seconds = 0;
  // Bytes of the line up to the end of the timestamp (past a closing ']'),
  // prefix included: what remains is the message.
  std::size_t end = 0;
};

// The timestamp that opens the line, if any.
std::optional<LogTimestamp> read_log_timestamp(std::string_view line);

// Seconds since the epoch of a stamp placed in `year` (for month_day_only
// stamps: the caller knows the year from the file's date or a neighbouring
// line). nullopt when the day does not exist in that year (29 February).
std::optional<double> seconds_in_year(const LogTimestamp& stamp, int year);

}  // namespace ftdiag::parse
