// console.log: the job's output, one line per record, each stamped with the
// time its first byte arrived, so log lines can be placed on the memory
// timeline:
//
//   1764405600.123456 o Saving model checkpoint to out/checkpoint-500
//   1764405600.130001 e Traceback (most recent call last):
//
// The text is the job's bytes unchanged (no escaping); "o" is stdout, "e" is
// stderr, "t" is a pseudo-terminal (stdout and stderr merged, as on a screen).
// The writer is journal/console_log.h.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/fact.h"

namespace ftdiag::evidence {

enum class ConsoleStream : char { out = 'o', err = 'e', terminal = 't' };

// Sees every record of console.log as it is completed, in the order of the
// file, without a copy (for live views of the console: the last lines, the
// training phase). Called on the thread that feeds the writer.
class ConsoleLineObserver {
 public:
  virtual ~ConsoleLineObserver() = default;
  // `text` is the record's text without its line end; it points into the
  // writer's buffer and is valid only during the call.
  virtual void on_line(double time, ConsoleStream stream, std::string_view text) = 0;
};

struct ConsoleLine {
  double time = 0;
  char stream = 'o';
  std::string text;
  // The failure word the line holds (rules/failure-words.json), marked on the
  // console's last lines once the run is read (collectors/failure_word_marks.h).
  std::optional<std::string> word;

  bool operator==(const ConsoleLine&) const = default;
};

// Parses one line of console.log (without its "\n"). Missing for a line that
// does not start with a timestamp and stream letter.
Fact<ConsoleLine> parse_console_line(std::string_view line);

}  // namespace ftdiag::evidence
