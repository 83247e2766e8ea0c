#include "report/memory_chart_svg.h"

#include <algorithm>
#include <array>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "base/units.h"
#include "evidence/exit_status.h"
#include "facts/process_roles.h"
#include "report/report_tables.h"
#include "report/text_layout.h"

namespace ftdiag::report {

namespace {

constexpr double kWidth = 960, kHeight = 320;
constexpr double kLeft = 80, kRight = 20, kTop = 24, kBottom = 40;
constexpr double kPlotWidth = kWidth - kLeft - kRight, kPlotHeight = kHeight - kTop - kBottom;

struct Scale {
  double t0 = 0, t1 = 1;
  double top = 1;  // bytes at the top of the plot
  double x(double t) const { return kLeft + kPlotWidth * std::clamp((t - t0) / (t1 - t0), 0.0, 1.0); }
  double y(double bytes) const { return kTop + kPlotHeight * (1.0 - std::clamp(bytes / top, 0.0, 1.0)); }
};

using Points = std::vector<std::pair<double, double>>;  // time, bytes

std::string polyline(const Scale& s, const Points& points, std::string_view series, std::string_view colour, std::string_view label) {
  if (points.empty()) return {};
  std::string coords;
  for (const auto& [t, b] : points) coords += fmt::format("{:.1f},{:.1f} ", s.x(t), s.y(b));
  return fmt::format("<polyline class=\"series\" data-series=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"><title>{}</title></polyline>\n",
                     series, colour, coords, html_escape(label));
}

std::string level_line(const Scale& s, double bytes, std::string_view series, std::string_view colour, std::string_view label) {
  const double y = s.y(bytes);
  return fmt::format("<g data-series=\"{0}\"><line x1=\"{1:.1f}\" x2=\"{2:.1f}\" y1=\"{3:.1f}\" y2=\"{3:.1f}\" stroke=\"{4}\" stroke-dasharray=\"6 4\" stroke-width=\"1.5\"/>"
                     "<text x=\"{2:.1f}\" y=\"{5:.1f}\" text-anchor=\"end\" class=\"label\" fill=\"{4}\">{6}</text></g>\n",
                     series, kLeft, kLeft + kPlotWidth, y, colour, y - 4, html_escape(label));
}

std::string axes(const Scale& s) {
  std::string out = fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#999\"/>\n", kLeft, kTop, kPlotWidth, kPlotHeight);
  for (int i = 0; i <= 4; ++i) {
    const double bytes = s.top * i / 4.0;
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" class=\"tick\">{}</text>\n", kLeft - 6, s.y(bytes) + 4,
                       format_bytes(static_cast<std::uint64_t>(bytes)));
  }
  for (int i = 0; i <= 5; ++i) {
    const double t = s.t0 + (s.t1 - s.t0) * i / 5.0;
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" class=\"tick\">+{}</text>\n", s.x(t), kTop + kPlotHeight + 18,
                       format_duration(t - s.t0));
  }
  return out;
}

const char* phase_colour(const std::string& phase) {
  if (phase == "model-load") return "#dbeafe";
  if (phase == "data-preprocessing") return "#fef3c7";
  if (phase == "training") return "#dcfce7";
  if (phase == "evaluation") return "#ede9fe";
  if (phase == "checkpoint-save") return "#fee2e2";
  return "#f3f4f6";
}

std::string phase_bands(const Scale& s, const evidence::RunEvidence& run) {
  std::string out;
  const auto& phases = run.console.phases;
  for (std::size_t i = 0; i < phases.size(); ++i) {
    const double from = phases[i].first_time;
    const double to = i + 1 < phases.size() ? phases[i + 1].first_time : s.t1;
    if (to <= from) continue;
    out += fmt::format("<g class=\"phase\" data-phase=\"{0}\"><rect x=\"{1:.1f}\" y=\"{2}\" width=\"{3:.1f}\" height=\"{4}\" fill=\"{5}\"/>"
                       "<text x=\"{6:.1f}\" y=\"{7}\" class=\"label\">{0}</text></g>\n",
                       html_escape(phases[i].phase), s.x(from), kTop, std::max(1.0, s.x(to) - s.x(from)), kPlotHeight,
                       phase_colour(phases[i].phase), s.x(from) + 3, kTop + 12);
  }
  return out;
}

std::string death_marks(const Scale& s, const evidence::RunEvidence& run) {
  std::vector<const evidence::ProcessEvidence*> dead;
  for (const auto& p : run.processes) {
    if (abnormal_death(p) && p.death->status) dead.push_back(&p);
  }
  std::sort(dead.begin(), dead.end(), [](auto* a, auto* b) { return a->death->time < b->death->time; });
  std::string out;
  double last_label_x = -1e9;
  int level = 0;
  for (const auto* process : dead) {
    const auto& p = *process;
    const auto& status = p.death->status.value();
    const double x = s.x(p.death->time);
    // Deaths close together (a launcher's teardown) get their labels one under another.
    level = x - last_label_x < 150 ? std::min(level + 1, 6) : 0;
    last_label_x = x;
    const std::string label = fmt::format("pid {} {}", p.pid, status.signal ? evidence::signal_name(*status.signal) : fmt::format("exit {}", status.exit_code.value_or(0)));
    out += fmt::format("<g class=\"death\" data-pid=\"{0}\" data-signal=\"{1}\"><line x1=\"{2:.1f}\" x2=\"{2:.1f}\" y1=\"{3}\" y2=\"{4}\" stroke=\"#b91c1c\" stroke-width=\"2\"/>"
                       "<text x=\"{5:.1f}\" y=\"{6}\" text-anchor=\"end\" class=\"label\" fill=\"#b91c1c\">{7}</text></g>\n",
                       p.pid, status.signal.value_or(0), x, kTop, kTop + kPlotHeight, x - 3, kTop + 28 + 14 * level, html_escape(label));
  }
  return out;
}

// Coloured marks and names along the top of a chart.
std::string legend(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string out;
  double x = kLeft;
  for (const auto& [colour, name] : entries) {
    out += fmt::format("<rect x=\"{:.1f}\" y=\"6\" width=\"14\" height=\"4\" fill=\"{}\"/><text x=\"{:.1f}\" y=\"12\" class=\"label\">{}</text>\n", x, colour, x + 18,
                       html_escape(name));
    x += 26 + 6.5 * static_cast<double>(name.size());
  }
  return out;
}

std::string svg_open(std::string_view name, double height = kHeight) {
  return fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" data-chart=\"{}\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" role=\"img\">\n",
                     name, kWidth, height, kWidth, height);
}

}  // namespace

std::string memory_chart_svg(const evidence::RunEvidence& run, const facts::FactSet& facts) {
  Points cgroup, rss, node_used;
  const auto& m = run.memory;
  for (const auto& p : run.timeline) {
    if (p.cgroup_usage) cgroup.emplace_back(p.time, static_cast<double>(p.cgroup_usage.value()));
    if (p.job_rss) rss.emplace_back(p.time, static_cast<double>(p.job_rss.value()));
    if (p.node_available && m.node_mem_total) {
      node_used.emplace_back(p.time, static_cast<double>(m.node_mem_total.value()) - static_cast<double>(p.node_available.value()));
    }
  }
  std::optional<double> limit;
  if (m.cgroup_last && m.cgroup_last.value().limit && m.cgroup_last.value().limit.value() && *m.cgroup_last.value().limit.value() > 0) {
    limit = static_cast<double>(*m.cgroup_last.value().limit.value());
  }
  // A cgroup shared with processes outside the job, with no limit, measures them too: not drawn.
  if (!limit && m.cgroup_last && !m.cgroup_last.value().shared_with.value_or("").empty()) cgroup.clear();
  if (cgroup.size() < 2 && rss.size() < 2) return {};
  std::optional<double> node_ram;
  if (m.node_mem_total) node_ram = static_cast<double>(m.node_mem_total.value());
  std::optional<double> predicted;
  if (auto peak = facts.value_of<std::int64_t>("estimate.save_peak_bytes"); peak && *peak > 0) predicted = static_cast<double>(*peak);

  Scale s;
  s.t0 = run.started.time;
  s.t1 = std::max({run.ended ? run.ended->time : 0.0, cgroup.empty() ? 0.0 : cgroup.back().first, rss.empty() ? 0.0 : rss.back().first});
  for (const auto& p : run.processes) {
    if (p.death) s.t1 = std::max(s.t1, p.death->time);
  }
  if (s.t1 <= s.t0) s.t1 = s.t0 + 1;
  double top = 0;
  for (const auto* series : {&cgroup, &rss}) {
    for (const auto& [t, b] : *series) top = std::max(top, b);
  }
  // The ceiling that kills is in view: the cgroup's limit, else the node's RAM.
  if (limit) top = std::max(top, *limit);
  else if (node_ram) top = std::max(top, *node_ram);
  if (predicted) top = std::max(top, *predicted);
  s.top = top * 1.08;

  std::string out = svg_open("memory");
  out += phase_bands(s, run);
  out += axes(s);
  if (limit) out += level_line(s, *limit, "cgroup-limit", "#b91c1c", "cgroup limit " + format_bytes(static_cast<std::uint64_t>(*limit)));
  if (node_ram && (!limit || *node_ram <= s.top)) out += level_line(s, *node_ram, "node-ram", "#6b7280", "node RAM " + format_bytes(static_cast<std::uint64_t>(*node_ram)));
  if (predicted) out += level_line(s, *predicted, "predicted-save-peak", "#7c3aed", "predicted save peak " + format_bytes(static_cast<std::uint64_t>(*predicted)));
  std::vector<std::pair<std::string, std::string>> names;
  if (!limit && !node_used.empty()) {
    out += polyline(s, node_used, "node-used", "#9ca3af", "the node's used RAM");
    names.emplace_back("#9ca3af", "node's used RAM");
  }
  if (!rss.empty()) {
    // Pages the processes share are counted once per process: the sum can pass the cgroup's usage.
    out += polyline(s, rss, "job-rss", "#2563eb", "the job's RSS, summed over its processes");
    names.emplace_back("#2563eb", "RSS summed over the job's processes");
  }
  if (!cgroup.empty()) {
    out += polyline(s, cgroup, "cgroup-usage", "#ea580c", "the job's memory cgroup usage");
    names.emplace_back("#ea580c", "memory cgroup usage");
  }
  out += legend(names);
  out += death_marks(s, run);
  out += "</svg>\n";
  return out;
}

std::string gpu_chart_svg(const evidence::RunEvidence& run) {
  std::map<int, Points> devices;
  double top = 0;
  for (const auto& sample : run.gpu_samples) {
    for (const auto& d : sample.devices) {
      if (!d.used) continue;
      devices[d.index].emplace_back(sample.time, static_cast<double>(*d.used));
      top = std::max(top, static_cast<double>(*d.used));
    }
  }
  if (devices.empty() || top <= 0) return {};
  Scale s;
  s.t0 = run.started.time;
  s.t1 = std::max(run.ended ? run.ended->time : 0.0, run.gpu_samples.back().time);
  if (s.t1 <= s.t0) s.t1 = s.t0 + 1;
  s.top = top * 1.08;
  static constexpr std::array<std::string_view, 8> kColours = {"#2563eb", "#16a34a", "#ea580c", "#7c3aed", "#0891b2", "#ca8a04", "#db2777", "#4b5563"};
  std::string out = svg_open("gpu");
  out += phase_bands(s, run);
  out += axes(s);
  std::vector<std::pair<std::string, std::string>> names;
  for (const auto& [index, points] : devices) {
    const std::string colour(kColours[static_cast<std::size_t>(index) % kColours.size()]);
    out += polyline(s, points, fmt::format("gpu-{}", index), colour, fmt::format("GPU {}", index));
    names.emplace_back(colour, fmt::format("GPU {}", index));
  }
  out += legend(names);
  out += death_marks(s, run);
  out += "</svg>\n";
  return out;
}

std::string process_peaks_svg(const evidence::RunEvidence& run) {
  const auto roles = facts::process_roles(run);
  struct Bar {
    std::string label;
    double bytes;
    int pid;
  };
  std::vector<Bar> bars;
  for (std::size_t i = 0; i < run.processes.size(); ++i) {
    const auto& p = run.processes[i];
    if (!p.peak_rss) continue;
    const std::string role = i < roles.size() ? role_label(roles[i]) : "";
    bars.push_back({fmt::format("pid {} {}", p.pid, role), static_cast<double>(p.peak_rss.value()), p.pid});
  }
  if (bars.empty()) return {};
  std::sort(bars.begin(), bars.end(), [](const Bar& a, const Bar& b) { return a.bytes > b.bytes; });
  constexpr std::size_t kBars = 16;
  if (bars.size() > kBars) bars.resize(kBars);
  constexpr double kRow = 22, kLabel = 260;
  const double height = kTop + kRow * static_cast<double>(bars.size()) + 10;
  const double top = bars.front().bytes;
  std::string out = svg_open("process-peaks", height);
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const double y = kTop + kRow * static_cast<double>(i);
    const double w = top > 0 ? (kWidth - kLabel - 120) * bars[i].bytes / top : 0;
    out += fmt::format("<g data-series=\"process-peak\" data-pid=\"{0}\"><text x=\"{1}\" y=\"{2:.1f}\" text-anchor=\"end\" class=\"label\">{3}</text>"
                       "<rect x=\"{4}\" y=\"{5:.1f}\" width=\"{6:.1f}\" height=\"{7}\" fill=\"#60a5fa\"/><text x=\"{8:.1f}\" y=\"{2:.1f}\" class=\"label\">{9}</text></g>\n",
                       bars[i].pid, kLabel - 8, y + 14, html_escape(bars[i].label), kLabel, y + 3, std::max(1.0, w), kRow - 6, kLabel + w + 6,
                       format_bytes(static_cast<std::uint64_t>(bars[i].bytes)));
  }
  out += "</svg>\n";
  return out;
}

}  // namespace ftdiag::report
