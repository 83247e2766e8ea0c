// Keeps the evidence document's timeline small for long runs without losing
// what matters: the extremes of each stretch, and the last minutes before the
// end at full resolution (an OOM at checkpoint save happens in seconds).
#pragma once

#include <vector>

#include "evidence/document.h"

namespace ftdiag::evidence {

inline constexpr std::size_t kTimelineMaxPoints = 2000;
inline constexpr std::size_t kTimelineFullResolutionTail = 600;  // 5 min at 0.5 s

// Returns at most max_points points: the last `tail` unchanged, the earlier
// ones merged into buckets that keep each series' worst value (highest usage,
// lowest available memory) stamped with the bucket's last time.
std::vector<TimelinePoint> downsample_timeline(std::vector<TimelinePoint> points,
                                               std::size_t max_points, std::size_t tail);

}  // namespace ftdiag::evidence
