// Facts about memory: the cgroup's limit and peak, the node's RAM, /dev/shm,
// and the shape of the job's memory curve before the incident.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "facts/extract.h"

namespace ftdiag::facts {

namespace {

using evidence::Bytes;
using evidence::RunEvidence;
using evidence::TimelinePoint;

std::int64_t as_int(Bytes b) { return static_cast<std::int64_t>(b); }

// The last timeline point at or before the incident.
const TimelinePoint* point_before(const RunEvidence& run, double time) {
  const TimelinePoint* found = nullptr;
  for (const auto& p : run.timeline) {
    if (p.time > time) break;
    found = &p;
  }
  return found;
}

std::optional<Bytes> limit_of(const RunEvidence& run) {
  const auto& c = run.memory.cgroup_last;
  if (!c || !c->limit || !c->limit.value()) return std::nullopt;
  return *c->limit.value();
}

void extract_cgroup(const RunEvidence& run, const std::string& at, std::optional<double> incident_time, FactSet& facts) {
  const auto& m = run.memory;
  if (!m.cgroup_last) {
    for (const char* name : {"cgroup.version", "cgroup.limit_bytes", "cgroup.peak_bytes", "cgroup.peak_ratio",
                             "cgroup.usage_before_death_ratio", "cgroup.oom_kill", "cgroup.oom_events", "cgroup.oom_group",
                             "cgroup.oom_group_kill", "cgroup.limit_to_node_ratio"}) {
      facts.set_missing(name, m.cgroup_last.missing());
    }
    return;
  }
  const auto& c = m.cgroup_last.value();
  facts.set("cgroup.version", std::int64_t{c.version}, at + "/memory/cgroup/version");
  if (m.cgroup_peak) facts.set("cgroup.peak_bytes", as_int(m.cgroup_peak.value()), at + "/memory/cgroup_peak_bytes");
  const auto limit = limit_of(run);
  if (!limit) {
    Missing why = c.limit ? Missing{MissingReason::not_present, "the job's cgroup has no memory limit"} : c.limit.missing();
    for (const char* name : {"cgroup.limit_bytes", "cgroup.peak_ratio", "cgroup.usage_before_death_ratio", "cgroup.limit_to_node_ratio"}) {
      facts.set_missing(name, why);
    }
  } else {
    facts.set("cgroup.limit_bytes", as_int(*limit), at + "/memory/cgroup/limit_bytes");
    // A 64 GiB container on a 1 TiB node: the limit, not the node, is what the job meets.
    if (m.node_mem_total && m.node_mem_total.value() > 0) {
      facts.set("cgroup.limit_to_node_ratio", static_cast<double>(*limit) / static_cast<double>(m.node_mem_total.value()),
                at + "/memory/cgroup/limit_bytes");
    } else {
      facts.set_missing("cgroup.limit_to_node_ratio", Missing{MissingReason::not_present, "the node's RAM is unknown"});
    }
    if (m.cgroup_peak) {
      facts.set("cgroup.peak_ratio", static_cast<double>(m.cgroup_peak.value()) / static_cast<double>(*limit),
                at + "/memory/cgroup_peak_bytes");
    }
    if (incident_time) {
      if (const auto* p = point_before(run, *incident_time); p && p->cgroup_usage) {
        facts.set("cgroup.usage_before_death_ratio", static_cast<double>(p->cgroup_usage.value()) / static_cast<double>(*limit),
                  at + "/timeline");
      }
    }
  }
  // Counters are cumulative over the cgroup's life: count what happened during the run.
  auto during_run = [&](Fact<std::uint64_t> last_value, const Fact<std::uint64_t>& first) -> Fact<FactValue> {
    if (!last_value) return last_value.missing();
    const auto before = first ? first.value() : 0;
    return FactValue{static_cast<std::int64_t>(last_value.value() - std::min(before, last_value.value()))};
  };
  const auto& first = m.cgroup_first;
  auto oom_kill = during_run(c.oom_kill, first ? first->oom_kill : Fact<std::uint64_t>(Missing{}));
  auto oom_events = during_run(c.oom_events, first ? first->oom_events : Fact<std::uint64_t>(Missing{}));
  if (oom_kill) facts.set("cgroup.oom_kill", oom_kill.value(), at + "/memory/cgroup/oom_kill");
  else facts.set_missing("cgroup.oom_kill", oom_kill.missing());
  if (oom_events) facts.set("cgroup.oom_events", oom_events.value(), at + "/memory/cgroup/oom_events");
  else facts.set_missing("cgroup.oom_events", oom_events.missing());
  auto group_kills = during_run(c.oom_group_kill, first ? first->oom_group_kill : Fact<std::uint64_t>(Missing{}));
  if (group_kills) facts.set("cgroup.oom_group_kill", group_kills.value(), at + "/memory/cgroup/oom_group_kill");
  else facts.set_missing("cgroup.oom_group_kill", group_kills.missing());
  if (c.oom_group) facts.set("cgroup.oom_group", c.oom_group.value(), at + "/memory/cgroup/oom_group");
  else facts.set_missing("cgroup.oom_group", c.oom_group.missing());
}

void extract_node(const RunEvidence& run, const std::string& at, std::optional<double> incident_time, FactSet& facts) {
  const auto& m = run.memory;
  if (m.node_mem_total) facts.set("node.mem_total_bytes", as_int(m.node_mem_total.value()), at + "/memory/node_mem_total_bytes");
  if (m.node_min_available) {
    facts.set("node.min_available_bytes", as_int(m.node_min_available.value()), at + "/memory/node_min_available_bytes");
    if (m.node_mem_total && m.node_mem_total.value() > 0) {
      facts.set("node.min_available_ratio",
                static_cast<double>(m.node_min_available.value()) / static_cast<double>(m.node_mem_total.value()),
                at + "/memory/node_min_available_bytes");
    }
  }
  if (incident_time && m.node_mem_total && m.node_mem_total.value() > 0) {
    if (const auto* p = point_before(run, *incident_time); p && p->node_available) {
      facts.set("node.available_before_death_ratio",
                static_cast<double>(p->node_available.value()) / static_cast<double>(m.node_mem_total.value()), at + "/timeline");
    }
  }
  if (m.dev_shm_total) {
    facts.set("shm.total_bytes", as_int(m.dev_shm_total.value()), at + "/memory/dev_shm_total_bytes");
    if (m.dev_shm_peak_used && m.dev_shm_total.value() > 0) {
      facts.set("shm.peak_used_ratio",
                static_cast<double>(m.dev_shm_peak_used.value()) / static_cast<double>(m.dev_shm_total.value()),
                at + "/memory/dev_shm_peak_used_bytes");
    }
  }
  if (m.job_rss_peak) facts.set("memory.job_rss_peak_bytes", as_int(m.job_rss_peak.value()), at + "/memory/job_rss_peak_bytes");
}

using Curve = std::vector<std::pair<double, double>>;  // time, bytes

// Samples in a row whose spread is within kLevelSpread of their highest:
// memory that stands still after start-up (imports, building the model,
// loading data) has levelled off.
constexpr std::size_t kLevelSamples = 5;
constexpr double kLevelSpread = 0.03;

struct StartupEnd {
  double time = 0;
  std::string by;  // "training-phase", "memory-levelled", or "" when not found
};

// The first sample, at or after `from`, of the first stretch where memory
// stands still, looked for in the first half of what follows `from` (later,
// a slow leak can look still over a few samples).
std::optional<double> first_level_after(const Curve& curve, double from) {
  const auto begin = static_cast<std::size_t>(
      std::find_if(curve.begin(), curve.end(), [&](const auto& point) { return point.first >= from; }) - curve.begin());
  const std::size_t half = begin + (curve.size() - begin) / 2;
  for (std::size_t i = begin; i + kLevelSamples <= curve.size() && i < half; ++i) {
    double low = curve[i].second, high = curve[i].second;
    for (std::size_t k = i; k < i + kLevelSamples; ++k) {
      low = std::min(low, curve[k].second);
      high = std::max(high, curve[k].second);
    }
    if (high > 0 && (high - low) / high <= kLevelSpread) return curve[i].first;
  }
  return std::nullopt;
}

// Where start-up ends, so that importing torch and building the model do
// not count as growth: where memory first stands still after the first
// console line of the training phase (the optimizer's state appears at the
// first step), else that line itself (a leak from the first step); without
// a training line, where memory first stands still; else nowhere (the whole
// curve is measured).
StartupEnd startup_end(const RunEvidence& run, const Curve& curve) {
  for (const auto& stretch : run.console.phases) {
    if (stretch.phase != "training") continue;
    return {first_level_after(curve, stretch.first_time).value_or(stretch.first_time), "training-phase"};
  }
  if (auto level = first_level_after(curve, curve.empty() ? 0 : curve.front().first)) return {*level, "memory-levelled"};
  return {};
}

// How the curve looks from the end of start-up to its peak, in words a user
// recognises: memory standing still; standing still, then a jump at the end
// (a save, a load, one huge batch); climbing most of the way (a leak, a
// growing cache); or climbing and falling back repeatedly.
std::string shape_of(const Curve& curve, double growth, double rise_span_ratio) {
  const double peak = std::max_element(curve.begin(), curve.end(), [](auto& a, auto& b) { return a.second < b.second; })->second;
  std::size_t big_drops = 0;
  for (std::size_t i = 1; i < curve.size(); ++i) big_drops += curve[i - 1].second - curve[i].second > 0.1 * peak;
  if (big_drops >= 3) return "sawtooth";
  if (growth < 1.1) return "flat";
  if (rise_span_ratio <= 0.25) return "flat-then-jump";
  if (rise_span_ratio >= 0.5) return "steady-climb";
  return "irregular";
}

// The job's memory curve: the cgroup's usage when a limit binds it, else the
// job's total RSS; measured from the end of start-up.
void extract_curve(const RunEvidence& run, const std::string& at, double end_time, FactSet& facts) {
  const bool use_cgroup = limit_of(run).has_value();
  Curve whole;
  for (const auto& p : run.timeline) {
    if (p.time > end_time) break;
    const auto& value = use_cgroup ? p.cgroup_usage : p.job_rss;
    if (value) whole.emplace_back(p.time, static_cast<double>(value.value()));
  }
  facts.set("memory.samples", static_cast<std::int64_t>(whole.size()), at + "/timeline");
  const StartupEnd startup = startup_end(run, whole);
  Curve curve;
  for (const auto& point : whole) {
    if (point.first >= startup.time) curve.push_back(point);
  }
  const bool after_startup = !startup.by.empty() && curve.size() >= 2;
  if (!after_startup) curve = whole;  // start-up not found, or not over before the incident
  if (after_startup) {
    facts.set("memory.startup_end", startup.time - run.started.time,
              at + (startup.by == "training-phase" ? "/console/phases" : "/timeline"));
    facts.set("memory.startup_end_by", startup.by, at + (startup.by == "training-phase" ? "/console/phases" : "/timeline"));
  } else {
    const Missing why{MissingReason::not_present, startup.by.empty() ? "no training line and memory never stood still: the whole curve is measured"
                                                                     : "start-up was not over before the incident: the whole curve is measured"};
    facts.set_missing("memory.startup_end", why);
    facts.set_missing("memory.startup_end_by", why);
  }
  if (curve.size() < 2) return;
  std::size_t rises = 0, changes = 0;
  for (std::size_t i = 1; i < curve.size(); ++i) {
    if (curve[i].second == curve[i - 1].second) continue;
    ++changes;
    rises += curve[i].second > curve[i - 1].second;
  }
  if (changes > 0) facts.set("memory.rising_fraction", static_cast<double>(rises) / static_cast<double>(changes), at + "/timeline");
  // Base: the median of the first tenth, so a process still starting up
  // (a few MiB of interpreter) does not make every curve look like growth.
  std::vector<double> head;
  for (std::size_t i = 0; i < std::max<std::size_t>(1, curve.size() / 10); ++i) head.push_back(curve[i].second);
  std::nth_element(head.begin(), head.begin() + static_cast<std::ptrdiff_t>(head.size() / 2), head.end());
  const double base = head[head.size() / 2];
  if (after_startup) facts.set("memory.after_startup_bytes", static_cast<std::int64_t>(base), at + "/timeline");
  auto peak = std::max_element(curve.begin(), curve.end(), [](auto& a, auto& b) { return a.second < b.second; });
  if (base > 0) facts.set("memory.growth_factor", peak->second / base, at + "/timeline");
  // The climb starts where memory last stood near its starting level (within
  // a tenth of the climb): a plateau then a spike gives a short rise, steady
  // growth a rise as long as the run.
  const double near_base = base + (peak->second - base) * 0.1;
  double rise_start = curve.front().first;
  for (auto it = curve.begin(); it != peak; ++it) {
    if (it->second <= near_base) rise_start = it->first;
  }
  const double span = peak->first - rise_start;
  facts.set("memory.rise_span", span, at + "/timeline");
  facts.set("memory.rise_start", rise_start - run.started.time, at + "/timeline");
  const double measured = end_time - (after_startup ? startup.time : run.started.time);
  const double ratio = measured > 0 ? std::min(1.0, span / measured) : 0.0;
  if (measured > 0) facts.set("memory.rise_span_ratio", ratio, at + "/timeline");
  if (base > 0) facts.set("memory.shape", shape_of(curve, peak->second / base, ratio), at + "/timeline");
}

}  // namespace

void extract_memory_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts) {
  const auto focus = focus_run(document, incident);
  if (!focus) return;
  const auto& run = evidence::run_at(document, *focus);
  const auto at = focus->pointer();
  const std::optional<double> incident_time = incident ? incident->time : std::nullopt;
  extract_cgroup(run, at, incident_time, facts);
  extract_node(run, at, incident_time, facts);
  const double end_time = incident_time ? *incident_time : (run.ended ? run.ended->time : run.started.time);
  extract_curve(run, at, end_time, facts);
}

}  // namespace ftdiag::facts
