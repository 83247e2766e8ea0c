#include "facts/node_clocks.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace ftdiag::facts {

namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[(values.size() - 1) / 2];  // the lower middle: an observed start, never an average of two
}

}  // namespace

NodeClocks NodeClocks::estimate(const evidence::EvidenceDocument& document) {
  NodeClocks clocks;
  // The runs of each Slurm step, by node.
  std::map<std::string, std::map<std::string, std::vector<double>>> starts_by_step;
  std::size_t nodes_seen = 0;
  std::map<std::string, bool> any_node;
  evidence::for_each_run(document, [&](const evidence::RunRef&, const evidence::RunEvidence& run) {
    const auto& node = evidence::node_of(run.started);
    if (!any_node[node]) ++nodes_seen;
    any_node[node] = true;
    if (run.started.time <= 0 || run.started.scheduler_job.rfind("slurm ", 0) != 0) return;
    starts_by_step[run.started.scheduler_job][node].push_back(run.started.time);
  });
  if (nodes_seen < 2) {
    clocks.basis_ = "one node: its own clock";
    return clocks;
  }
  // The step that spans the most nodes is the shared event.
  const std::map<std::string, std::vector<double>>* step = nullptr;
  std::string step_name;
  for (const auto& [name, nodes] : starts_by_step) {
    if (!step || nodes.size() > step->size()) step = &nodes, step_name = name;
  }
  if (!step || step->size() < 2) {
    clocks.basis_ = "no scheduler step shared by two nodes, so nothing to set their clocks against each other: times are compared as each node recorded them";
    return clocks;
  }
  std::vector<std::pair<double, std::string>> node_starts;
  for (const auto& [node, starts] : *step) node_starts.emplace_back(median(starts), node);
  std::sort(node_starts.begin(), node_starts.end());
  const auto& [reference_start, reference] = node_starts[(node_starts.size() - 1) / 2];
  clocks.reference_ = reference;
  for (const auto& [start, node] : node_starts) {
    const double offset = reference_start - start;
    if (std::fabs(offset) <= kLaunchSpreadSeconds) continue;
    clocks.offsets_[node] = offset;
    clocks.moved_.push_back({node, offset});
  }
  const std::string step_words = fmt::format("the runs of Slurm step {} started together on {} nodes", step_name.substr(6), step->size());
  clocks.basis_ = clocks.moved_.empty()
                      ? fmt::format("{} (within {:.0f} s): their clocks agree", step_words, kLaunchSpreadSeconds)
                      : fmt::format("{}: the nodes' clocks were set by their starts against {}'s", step_words, reference);
  return clocks;
}

double NodeClocks::offset_of(const std::string& node) const {
  auto it = offsets_.find(node);
  return it == offsets_.end() ? 0.0 : it->second;
}

double NodeClocks::common(const evidence::EvidenceDocument& document, const evidence::RunRef& ref, double time) const {
  if (offsets_.empty()) return time;
  return time + offset_of(evidence::node_of(evidence::run_at(document, ref).started));
}

}  // namespace ftdiag::facts
