// Fast read-back of the journal (journal.jsonl): each line straight into its
// record, generic over the field tables (record_fields.h), with no
// intermediate JSON tree. Lines as `ftdiag run` writes them are read without
// a JSON parser (journal_canonical.h); any other line by simdjson's
// On-Demand API (journal_parse.cpp). journal/journal_reader.h reads a file
// on several threads.
//
// Same results as the nlohmann path, record_from_json(json::parse(line)), for
// every line: the same records, and a failure wherever that path fails (the
// reasons may be worded differently). Unknown keys are ignored, a duplicate
// key counts at its last occurrence, an optional key that is absent keeps its
// default (a Fact says "no KEY"), a required one absent or null fails the
// line, and a value of the wrong type or an integer that does not fit its
// member (1.5 or 2^32 for an int, -1 for a byte count) fails it too. Known
// differences: simdjson refuses JSON nested deeper than 1024 levels, which
// nlohmann reads; and nlohmann's get<int>() converts a number that does not
// fit instead of refusing it, unless json_fields.h checks the range.
//
// simdjson stays out of this header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/fact.h"
#include "evidence/records.h"

namespace ftdiag::evidence {

// The longest journal line read; a longer one is skipped, never held whole,
// and reported as a problem ("9437184 bytes, over the limit of 8388608
// (8 MiB): skipped"). `ftdiag run` writes far shorter lines: a "sample" lists
// each process of the job in about 175 bytes (230 at most), so 10,000
// processes make 1.75 MB; a "process" line holds at most 64 KiB of command
// line (kMaxCmdlineBytes), 384 KiB once escaped. 8 MiB holds a sample of
// 36,000 processes or more, beyond the kernel's default pid_max (32768),
// while reading a line that long costs about 3 times its size (its text, its
// records, the parser's index): well within the 64 MiB `ftdiag analyze` may
// use.
inline constexpr std::size_t kMaxJournalLine = std::size_t{8} << 20;

// Reason given for a line that is not JSON, or not an object.
inline constexpr std::string_view kNotAJsonObject = "not a JSON object (cut short when ftdiag was killed?)";

// Parses one journal line. Missing(unparseable) with the reason for anything
// that is not a valid record; never throws. Uses a parser kept per thread.
Fact<JournalRecord> parse_journal_line(std::string_view line);

// A parser to reuse across lines (it keeps its buffers).
class JournalLineParser {
 public:
  JournalLineParser();
  ~JournalLineParser();
  JournalLineParser(JournalLineParser&&) noexcept;
  JournalLineParser& operator=(JournalLineParser&&) noexcept;

  // Copies `line` into a padded buffer, then parses it.
  Fact<JournalRecord> parse(std::string_view line);
  // Parses in place: `capacity` bytes from `data` must be readable (their
  // content past `size` does not matter), with capacity >= size + padding().
  // `reuse`, if given, is a record no longer needed whose arrays' memory the
  // result may take over (a sample's processes); it is left unspecified.
  Fact<JournalRecord> parse_in_place(const char* data, std::size_t size, std::size_t capacity,
                                     JournalRecord* reuse = nullptr);
  static std::size_t padding();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ftdiag::evidence
