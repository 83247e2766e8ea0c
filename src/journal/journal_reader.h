// Reading journal.jsonl back: the file cut into chunks of whole lines
// (journal_chunks.h), the lines parsed (evidence/journal_parse.h) on worker
// threads, their records handed on in file order.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "base/fact.h"
#include "evidence/journal_parse.h"
#include "evidence/records.h"

namespace ftdiag::journal {

// Receives what read_journal finds, line by line, in file order, on the
// thread that called read_journal (whichever threads parsed the lines).
class JournalSink {
 public:
  virtual ~JournalSink() = default;
  virtual void on_record(evidence::JournalRecord&& record) = 0;
  // A line that is not a record. `reason` does not repeat the file or the
  // line number, e.g. "not a JSON object (cut short when ftdiag was killed?)",
  // "9437184 bytes, over the limit of 8388608 (8 MiB): skipped", "no \"pid\"".
  virtual void on_problem(std::uint64_t line_number, std::string reason) = 0;
};

struct JournalReadStats {
  std::uint64_t lines = 0;     // lines seen (a last line without "\n" counts), empty ones too
  std::uint64_t records = 0;   // passed to on_record
  std::uint64_t problems = 0;  // passed to on_problem
  std::uint64_t bytes = 0;     // bytes read

  bool operator==(const JournalReadStats&) const = default;
};

struct JournalReadOptions {
  // Threads that parse: 0 takes one per CPU this process may run on (at most
  // 4) for a file of 32 MiB or more, and none for a smaller one; 1 parses on
  // the calling thread. A file of one chunk (1 MiB) or less, or whose first
  // chunk has lines of less than 512 bytes on average (records cost more to
  // hand from thread to thread than to parse), is parsed on the calling
  // thread whatever this says.
  unsigned threads = 0;
};

// Reads a journal file in chunks of whole lines, parses them on worker
// threads, and hands each line's record, or its problem, to `sink` in file
// order. At most a few chunks are in flight (4 MiB of text, and their
// records), so memory stays bounded whatever the file's length. A damaged or
// cut line costs only that line; empty lines (and lines of a lone "\r") are
// skipped silently; a "\r" before "\n" is JSON whitespace. Missing when the
// file cannot be opened, is not a regular file (a FIFO is refused at once,
// never waited on), or a read fails (the lines read before that have been
// delivered).
Fact<JournalReadStats> read_journal(const std::filesystem::path& journal, JournalSink& sink,
                                    const JournalReadOptions& options = {});

}  // namespace ftdiag::journal
