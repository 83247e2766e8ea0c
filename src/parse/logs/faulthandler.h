// CPython's faulthandler dump, as a crashing Python process writes it to
// stderr ("Fatal Python error: Segmentation fault", then each thread's
// frames, most recent call first, then "Extension modules: ..."), read line
// by line from a console or a log: the Python frames that led to a native
// crash, which the kernel and the exit status cannot tell.
//
//   Fatal Python error: Segmentation fault
//
//   Current thread 0x00007ff668a07b80 (most recent call first):
//     File "/home/user/job/fh.py", line 8 in train_step
//     File "/home/user/job/fh.py", line 12 in <module>
//
//   Extension modules: markupsafe._speedups, yaml._yaml (total: 2)
//
// Frame lines have no comma before "in" (a traceback's have one). 3.14 adds
// the C stack ("Binary file "...", at SYMBOL+0xOFF [0xADDR]") and thread
// names in the headers. Pure; never throws; bounded per dump.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ftdiag::parse {

struct PythonFrame {
  std::string file;
  std::optional<int> line;
  std::string function;

  bool operator==(const PythonFrame&) const = default;
};

struct NativeFrame {  // 3.14's "Binary file" lines
  std::string object;
  std::string symbol;              // "_Py_DumpStack", or empty for "+0x3def0"
  std::optional<std::uint64_t> offset;
  std::optional<std::uint64_t> address;

  bool operator==(const NativeFrame&) const = default;
};

struct PythonThread {
  std::string id;                  // "0x00007ff668a07b80"
  std::string name;                // 3.14: "[MPVEventHandlerThread]" without brackets; empty before
  bool current = false;            // the thread that received the signal
  std::vector<PythonFrame> frames; // innermost first, at most 100 (CPython's limit)
  bool truncated = false;          // "  ..." after the 100th
  std::vector<NativeFrame> native; // 3.14+, the current thread's C stack

  bool operator==(const PythonThread&) const = default;
};

struct FaulthandlerDump {
  std::string error;               // "Segmentation fault", "Bus error", "Aborted", ...
  std::optional<int> signal;       // the signal that error names
  std::vector<PythonThread> threads;
  std::vector<std::string> extension_modules;
  std::uint64_t first_line = 0;    // of "Fatal Python error:", 1-based, as fed

  bool operator==(const FaulthandlerDump&) const = default;
};

// Fed one line at a time (without its newline); returns each dump once it
// has ended (at the next line that is not part of it, or at finish()).
class FaulthandlerReader {
 public:
  // `line_number` is the caller's count, kept as the dump's first_line.
  std::optional<FaulthandlerDump> feed(std::string_view line, std::uint64_t line_number);
  std::optional<FaulthandlerDump> finish();
  // Starts a dump without its "Fatal Python error" line (a requested one).
  void begin_requested(std::uint64_t line_number);

 private:
  std::optional<FaulthandlerDump> close();

  std::optional<FaulthandlerDump> dump_;
  bool in_native_ = false;
};

// All dumps of a text.
std::vector<FaulthandlerDump> read_faulthandler_dumps(std::string_view text);

// The threads of a dump taken on request (faulthandler.register, or
// dump_traceback): the same thread blocks, without the "Fatal Python error"
// line. Several requests appended to one file: the last dump's. nullopt when
// no thread header is in the text.
std::optional<FaulthandlerDump> read_requested_dump(std::string_view text);

}  // namespace ftdiag::parse
