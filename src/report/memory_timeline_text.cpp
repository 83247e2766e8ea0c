#include "report/memory_timeline_text.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "base/units.h"
#include "evidence/exit_status.h"
#include "report/report_tables.h"

namespace ftdiag::report {

namespace {

struct Series {
  std::vector<std::pair<double, std::uint64_t>> points;  // time, bytes
  std::uint64_t ceiling = 0;
  std::string what;           // "cgroup", "job RSS"
  std::string ceiling_name;   // "limit", "node RAM"
};

Series series_of(const evidence::RunEvidence& run) {
  Series s;
  // A cgroup is the job's memory when it limits the job or holds the job
  // alone; one shared with processes outside the job, with no limit, is not.
  const auto& last = run.memory.cgroup_last;
  const bool limited = last && last.value().limit && last.value().limit.value() && *last.value().limit.value() > 0;
  const bool shared = last && !last.value().shared_with.value_or("").empty();
  const bool cgroup = (limited || !shared) &&
                      std::any_of(run.timeline.begin(), run.timeline.end(), [](const auto& p) { return static_cast<bool>(p.cgroup_usage); });
  for (const auto& p : run.timeline) {
    const auto& value = cgroup ? p.cgroup_usage : p.job_rss;
    if (value) s.points.emplace_back(p.time, value.value());
  }
  s.what = cgroup ? "memory cgroup" : "job RSS";
  const auto& c = run.memory.cgroup_last;
  if (c && c.value().limit && c.value().limit.value() && *c.value().limit.value() > 0) {
    s.ceiling = *c.value().limit.value();
    s.ceiling_name = "limit";
  } else if (run.memory.node_mem_total) {
    s.ceiling = run.memory.node_mem_total.value();
    s.ceiling_name = "node RAM";
  }
  return s;
}

// The phase letter of each moment: the stretch that began last before it.
char phase_letter(const std::string& phase) {
  if (phase == "model-load") return 'L';
  if (phase == "data-preprocessing") return 'D';
  if (phase == "training") return 'T';
  if (phase == "evaluation") return 'E';
  if (phase == "checkpoint-save") return 'S';
  return '?';
}

std::string phase_name(char letter) {
  switch (letter) {
    case 'L': return "load";
    case 'D': return "data";
    case 'T': return "train";
    case 'E': return "eval";
    case 'S': return "save";
  }
  return "other";
}

// The incident's death, else the first that was not a clean exit, and when.
std::optional<std::pair<double, std::string>> death_to_mark(const evidence::RunEvidence& run, std::optional<std::size_t> incident) {
  if (incident && *incident < run.processes.size()) {
    const auto& p = run.processes[*incident];
    if (p.death && p.death->status) return {{p.death->time, p.death->status.value().describe()}};
  }
  std::optional<std::pair<double, std::string>> first;
  for (const auto& p : run.processes) {
    // Marked with its status: one unknown has nothing to say beside the mark.
    if (!abnormal_death(p) || !p.death->status) continue;
    if (!first || p.death->time < first->first) first = {{p.death->time, p.death->status.value().describe()}};
  }
  return first;
}

}  // namespace

std::string render_memory_timeline(const evidence::RunEvidence& run, const TextStyle& style, std::string_view indent,
                                   std::optional<std::size_t> incident) {
  const Series series = series_of(run);
  if (series.points.size() < 3) return "";
  const double start = run.started.time;
  const auto death = death_to_mark(run, incident);
  double end = std::max(series.points.back().first, run.ended ? run.ended->time : 0.0);
  if (death) end = std::max(end, death->first);
  if (end <= start) return "";

  std::uint64_t peak = 0;
  for (const auto& [time, bytes] : series.points) peak = std::max(peak, bytes);
  const std::uint64_t top = std::max(series.ceiling, peak);
  if (top == 0) return "";
  std::string right = fmt::format(" peak {}", format_bytes(peak));
  if (series.ceiling) right += fmt::format(" of {} {}", format_bytes(series.ceiling), series.ceiling_name);

  // Label, the buckets, the death's mark, the peak: one line of the width.
  const std::string label_memory = "memory ", label_phase = "phase  ";
  const std::size_t used = indent.size() + label_memory.size() + 1 + right.size();
  const std::size_t buckets = std::clamp<std::size_t>(style.width > used ? style.width - used : 0, 10, 60);
  const double span = (end - start) / static_cast<double>(buckets);

  std::vector<std::optional<std::uint64_t>> level(buckets);
  for (const auto& [time, bytes] : series.points) {
    const auto b = std::min(buckets - 1, static_cast<std::size_t>(std::max(0.0, (time - start) / span)));
    level[b] = std::max(level[b].value_or(0), bytes);
  }
  static constexpr std::array<std::string_view, 9> kBlocks = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  static constexpr std::string_view kAscii = " .:-=+*#@";
  std::string bars;
  std::optional<std::uint64_t> carried;
  for (const auto& value : level) {
    if (value) carried = value;
    if (!carried) {
      bars += ' ';
      continue;
    }
    const auto step = static_cast<std::size_t>(std::min(8.0, std::ceil(8.0 * static_cast<double>(*carried) / static_cast<double>(top))));
    if (style.unicode) {
      bars += kBlocks[step];
    } else {
      bars += kAscii[step];
    }
  }
  const std::string mark = style.unicode ? "✕" : "X";
  std::string out = fmt::format("{}{}{}{}{}\n", indent, label_memory, toned(style, Tone::warn, bars), death ? toned(style, Tone::bad, mark) : " ",
                                toned(style, Tone::quiet, right));

  // The phase row, when the console named any phase.
  const auto& phases = run.console.phases;
  std::string row;
  std::vector<char> seen;
  for (std::size_t b = 0; b < buckets; ++b) {
    const double at = start + (static_cast<double>(b) + 0.5) * span;
    char letter = ' ';
    for (const auto& stretch : phases) {
      if (stretch.first_time <= at) letter = phase_letter(stretch.phase);
    }
    if (letter != ' ' && std::find(seen.begin(), seen.end(), letter) == seen.end()) seen.push_back(letter);
    row += letter;
  }
  std::string legend;
  for (const char letter : seen) legend += fmt::format("  {} {}", letter, phase_name(letter));
  if (death) legend += fmt::format("  {} {} at +{}", mark, death->second, format_duration(death->first - start));
  if (seen.empty() && !death) return out;
  const std::string lead = fmt::format("{}{}{}", indent, label_phase, seen.empty() ? std::string(buckets, ' ') : row);
  if (display_width(lead) + display_width(legend) <= style.width) {
    out += lead + toned(style, Tone::quiet, legend) + "\n";
  } else {
    // The legend under the row when the row leaves no room for it.
    out += lead + "\n";
    out += toned(style, Tone::quiet, wrap(legend.substr(2), style.width, std::string(indent) + std::string(label_phase.size(), ' '),
                                          std::string(indent) + std::string(label_phase.size(), ' ')));
  }
  return out;
}

}  // namespace ftdiag::report
