// What the evidence keeps of a console: the line count, the last lines and
// the stretches of lines that mark a training phase. Fed line by line, in
// bounded memory, by the journal reader (from console.log) and live by the
// supervisor (from the output relay), so both build the same ConsoleEvidence.
#pragma once

#include <deque>
#include <vector>
#include <string_view>

#include "evidence/console_lines.h"
#include "evidence/document.h"
#include "parse/logs/line_events.h"

namespace ftdiag::evidence {

inline constexpr std::size_t kConsoleTailLines = 200;
inline constexpr std::size_t kMaxPhaseStretches = 1000;
inline constexpr std::size_t kMaxMarkerText = 500;

class PhaseTable;

inline constexpr std::size_t kMaxConsoleEvents = 1000;  // the first half and the last half are kept

class ConsoleSummary final : public ConsoleLineObserver {
 public:
  // `phases` (not owned, may be null: phases then stay unknown) must outlive this.
  // `events` (not owned, may be null) recognises launcher, scheduler and
  // OOM-daemon lines.
  explicit ConsoleSummary(const PhaseTable* phases, const parse::LineEventTable* events = nullptr)
      : phases_(phases), events_(events) {}

  void add(double time, char stream, std::string_view text);
  void on_line(double time, ConsoleStream stream, std::string_view text) override {
    add(time, static_cast<char>(stream), text);
  }
  // The phase the latest phase-marking line marked, and when that stretch
  // of lines began; nullptr before any.
  const PhaseStretch* current_phase() const { return stretches_.empty() ? nullptr : &stretches_.back(); }

  // A line of console.log that did not parse: counted, not kept.
  void count_unparsed() { ++line_count_; }

  ConsoleEvidence finish() &&;

 private:
  void note_phase(std::string_view phase, double time, std::string_view text);

  void note_event(double time, std::string_view text);

  const PhaseTable* phases_;
  const parse::LineEventTable* events_;
  std::vector<LogEvent> first_events_;
  std::deque<LogEvent> last_events_;
  std::uint64_t events_dropped_ = 0;
  std::uint64_t line_count_ = 0;
  // The last lines, as a ring whose strings keep their capacity: the live
  // relay feeds every line of the job's output through here.
  std::vector<ConsoleLine> tail_;
  std::size_t tail_next_ = 0;
  std::deque<PhaseStretch> stretches_;
};

}  // namespace ftdiag::evidence
