#include "evidence/console_summary.h"

#include <algorithm>

#include "evidence/phase_table.h"
#include "evidence/quoted_line.h"
#include "evidence/run_file_names.h"

namespace ftdiag::evidence {

void ConsoleSummary::add(double time, char stream, std::string_view text) {
  ++line_count_;
  if (phases_) {
    if (auto phase = phases_->classify(text)) note_phase(*phase, time, text);
  }
  if (events_) note_event(time, text);
  if (tail_.size() < kConsoleTailLines) {
    tail_.push_back(ConsoleLine{time, stream, quoted_line(text, kMaxEventText)});
    return;
  }
  auto& slot = tail_[tail_next_];
  slot.time = time;
  slot.stream = stream;
  // A line that fits is quoted whole: copied into the slot's own capacity,
  // with no string made and freed for each line of the job's output.
  if (text.size() <= kMaxEventText) {
    slot.text.assign(text);
  } else {
    slot.text = quoted_line(text, kMaxEventText);
  }
  tail_next_ = (tail_next_ + 1) % kConsoleTailLines;
}

void ConsoleSummary::note_phase(std::string_view phase, double time, std::string_view text) {
  if (!stretches_.empty() && stretches_.back().phase == phase) {
    stretches_.back().last_time = time;
    ++stretches_.back().lines;
    return;
  }
  stretches_.push_back({std::string(phase), time, time, 1, std::string(text.substr(0, kMaxMarkerText))});
  if (stretches_.size() > kMaxPhaseStretches) stretches_.pop_front();
}

void ConsoleSummary::note_event(double time, std::string_view text) {
  auto matched = events_->match(text);
  if (!matched) return;
  LogEvent event{.kind = std::move(matched->kind),
                 .time = time,
                 .from = Provenance{.collector = "console", .file = std::string(kConsoleFileName), .line = line_count_},
                 .text = quoted_line(text, kMaxEventText),
                 .pid = matched->pid,
                 .signal = matched->signal,
                 .exit_code = matched->exit_code,
                 .rank = matched->rank,
                 .details = std::move(matched->details),
                 .means = std::move(matched->means)};
  event.details["source"] = matched->source;
  // The first events tell how the end began, the last how it ended.
  if (first_events_.size() < kMaxConsoleEvents / 2) {
    first_events_.push_back(std::move(event));
    return;
  }
  last_events_.push_back(std::move(event));
  if (last_events_.size() > kMaxConsoleEvents / 2) {
    last_events_.pop_front();
    ++events_dropped_;
  }
}

ConsoleEvidence ConsoleSummary::finish() && {
  ConsoleEvidence console;
  console.line_count = line_count_;
  // Oldest first: the ring's oldest line is at tail_next_ once it is full.
  std::rotate(tail_.begin(), tail_.begin() + static_cast<std::ptrdiff_t>(tail_next_), tail_.end());
  console.tail = std::move(tail_);
  console.phases.assign(std::make_move_iterator(stretches_.begin()), std::make_move_iterator(stretches_.end()));
  console.events = std::move(first_events_);
  console.events.insert(console.events.end(), std::make_move_iterator(last_events_.begin()),
                        std::make_move_iterator(last_events_.end()));
  console.events_dropped = events_dropped_;
  return console;
}

}  // namespace ftdiag::evidence
