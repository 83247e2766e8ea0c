#include "evidence/timeline.h"

#include <algorithm>

namespace ftdiag::evidence {

namespace {

template <class Better>
void keep(Fact<Bytes>& kept, const Fact<Bytes>& candidate, Better better) {
  if (!candidate) return;
  if (!kept || better(candidate.value(), kept.value())) kept = candidate;
}

TimelinePoint merge(const TimelinePoint* first, const TimelinePoint* last) {
  TimelinePoint merged = *first;
  for (const TimelinePoint* p = first + 1; p != last; ++p) {
    merged.time = p->time;
    keep(merged.node_available, p->node_available, std::less<>{});
    keep(merged.cgroup_usage, p->cgroup_usage, std::greater<>{});
    keep(merged.job_rss, p->job_rss, std::greater<>{});
    keep(merged.dev_shm_used, p->dev_shm_used, std::greater<>{});
    merged.process_count = std::max(merged.process_count, p->process_count);
  }
  return merged;
}

}  // namespace

std::vector<TimelinePoint> downsample_timeline(std::vector<TimelinePoint> points,
                                               std::size_t max_points, std::size_t tail) {
  if (points.size() <= max_points || tail >= max_points) return points;
  const std::size_t head_count = points.size() - tail;
  const std::size_t buckets = max_points - tail;
  std::vector<TimelinePoint> result;
  result.reserve(max_points);
  for (std::size_t b = 0; b < buckets; ++b) {
    std::size_t begin = head_count * b / buckets;
    std::size_t end = head_count * (b + 1) / buckets;
    if (begin == end) continue;
    result.push_back(merge(points.data() + begin, points.data() + end));
  }
  result.insert(result.end(), points.begin() + static_cast<std::ptrdiff_t>(head_count), points.end());
  return result;
}

}  // namespace ftdiag::evidence
