#include "evidence/console_summary.h"

#include <algorithm>

#include "evidence/phase_table.h"

namespace ftdiag::evidence {

void ConsoleSummary::add(double time, char stream, std::string_view text) {
  ++line_count_;
  if (phases_) {
    if (auto phase = phases_->classify(text)) note_phase(*phase, time, text);
  }
  if (tail_.size() < kConsoleTailLines) {
    tail_.push_back(ConsoleLine{time, stream, std::string(text)});
    return;
  }
  auto& slot = tail_[tail_next_];
  slot.time = time;
  slot.stream = stream;
  slot.text.assign(text);
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

ConsoleEvidence ConsoleSummary::finish() && {
  ConsoleEvidence console;
  console.line_count = line_count_;
  // Oldest first: the ring's oldest line is at tail_next_ once it is full.
  std::rotate(tail_.begin(), tail_.begin() + static_cast<std::ptrdiff_t>(tail_next_), tail_.end());
  console.tail = std::move(tail_);
  console.phases.assign(std::make_move_iterator(stretches_.begin()), std::make_move_iterator(stretches_.end()));
  return console;
}

}  // namespace ftdiag::evidence
