// Recognises the lines that launchers, schedulers, container runtimes and
// userspace OOM daemons print when a job's process dies or is killed:
// "Sending process 21119 closing signal SIGTERM" (torchrun tearing down a
// survivor), "Detected 1 oom_kill event in StepId=7.batch" (Slurm), "Reason:
// OOMKilled" (Kubernetes), "Killed /user.slice/... due to memory pressure"
// (systemd-oomd), ... Each becomes a typed LineEvent.
//
// The patterns are data (rules/log-events.json, documented in
// docs/log-events.md), compiled once. match() runs on every console line of a
// live job, so a line is first searched for the entries' literals (a
// substring every line an entry matches must contain); only the entries
// whose literal is present run their regular expression. A line with none
// of the literals costs a few tens of nanoseconds (bench/line_events.cpp).
//
// Pure: no files except in load(), no clocks, no process table.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ftdiag::parse {

// What one line says happened.
struct LineEvent {
  std::string kind;    // "launcher-teardown", "rank-failed", "scheduler-oom", ... (docs/log-events.md)
  std::string source;  // who printed it: "torchrun", "deepspeed", "slurm", "kubernetes", ...
  std::optional<int> pid;        // as printed (the printer's pid namespace)
  std::optional<int> signal;     // Linux signal number, when the line names or implies one
  std::optional<int> exit_code;  // as printed; a negative one (Python's -9) also sets signal
  std::optional<int> rank;       // local rank or task id, when printed
  // Everything else the line names, by the pattern's group names ("step",
  // "reason", "cgroup", ...) and the entry's fixed details. A typed group
  // whose text does not convert (an unknown signal name) lands here too, under
  // its own name, so nothing printed is lost.
  std::map<std::string, std::string> details;
  // What the kind means for a diagnosis, as its declaration in the table says:
  // failure, teardown, detail, pressure or status (docs/log-events.md).
  std::string means;

  bool operator==(const LineEvent&) const = default;
};

// One entry of the table, as loaded (for listings and documentation).
struct LineEventPattern {
  std::string kind;
  std::string source;
  std::string pattern;  // RE2
  std::string literal;  // the prefilter: every line the pattern matches contains it
};

class LineEventPrefilter;

class LineEventTable {
 public:
  // Parses {"kinds": [{"kind", "means", "fields", "what"}, ...], "events":
  // [{"kind", "source", "pattern", "literal", optional "signal", optional
  // "details"}, ...]} (JSON with comments). Every event entry's kind must be
  // declared, and fill only the fields its kind declares. Errors say
  // "source_name:line:column: what" (line and column of the offending value
  // where it is known). Never throws.
  static std::variant<LineEventTable, std::string> parse(std::string_view json_text, const std::string& source_name);
  static std::variant<LineEventTable, std::string> load(const std::filesystem::path& file);

  LineEventTable(LineEventTable&&) noexcept;
  LineEventTable& operator=(LineEventTable&&) noexcept;
  ~LineEventTable();

  // The event the line reports, if any: the first entry, in table order,
  // whose pattern matches. Searched anywhere in the line, so logger prefixes
  // (timestamps, "[rank3]:", "WARNING:torch...:") need no special handling;
  // trailing spaces, CR and NUL bytes and leading NUL bytes are ignored.
  // Linear in the line's length whatever the patterns. Thread-safe (const).
  std::optional<LineEvent> match(std::string_view line) const;

  const std::vector<LineEventPattern>& patterns() const;
  // The declared kinds, in table order.
  std::vector<std::string> kinds() const;
  // What a declared kind means (failure, teardown, detail, pressure, status);
  // empty for a kind the table does not declare.
  std::string means_of(std::string_view kind) const;

  struct Entry;  // compiled form of one pattern (line_events.cpp)

 private:
  LineEventTable();
  std::vector<Entry> entries_;
  std::vector<LineEventPattern> patterns_;
  std::vector<std::pair<std::string, std::string>> kind_means_;  // declared kind, what it means
  std::unique_ptr<LineEventPrefilter> prefilter_;

  friend class LineEventTableBuilder;
};

}  // namespace ftdiag::parse
