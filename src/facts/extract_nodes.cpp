// Facts about the job's nodes: how many recorded it, which fell silent and
// when against the first death elsewhere, which the scheduler gave the job
// but left no record, and the node of the incident (job_timeline.h).
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "facts/extract.h"
#include "facts/job_timeline.h"

namespace ftdiag::facts {

void extract_node_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts) {
  const auto timeline = job_timeline(document, incident);
  facts.set("job.nodes", static_cast<std::int64_t>(timeline.nodes), "/hosts");
  facts.set("nodes.clocks_moved", static_cast<std::int64_t>(timeline.clocks.moved().size()));
  facts.set("nodes.clock_basis", timeline.clocks.basis());
  facts.set("nodes.silent", static_cast<std::int64_t>(timeline.silent_nodes.size()));
  if (!timeline.silent_nodes.empty()) {
    facts.set("nodes.first_silent", timeline.silent_nodes.front());
    const auto silent_runs = std::count_if(timeline.rows.begin(), timeline.rows.end(), [&](const RankRow& row) {
      return row.node == timeline.silent_nodes.front();
    });
    facts.set("nodes.first_silent_runs", static_cast<std::int64_t>(silent_runs));
  } else {
    const Missing none{MissingReason::not_present, "no node fell silent: every run's journal has its end or a death"};
    facts.set_missing("nodes.first_silent", none);
    facts.set_missing("nodes.first_silent_runs", none);
  }
  if (timeline.silent_lead) {
    facts.set("nodes.silent_lead", *timeline.silent_lead);
  } else {
    facts.set_missing("nodes.silent_lead", Missing{MissingReason::not_present,
                                                   timeline.silent_nodes.empty() ? "no node fell silent"
                                                                                 : "no death elsewhere to set the silence against"});
  }
  if (timeline.expected_nodes) {
    facts.set("nodes.expected", *timeline.expected_nodes);
  } else {
    facts.set_missing("nodes.expected", Missing{MissingReason::not_present, "no run recorded SLURM_NNODES"});
  }
  facts.set("nodes.unrecorded", static_cast<std::int64_t>(timeline.unrecorded_nodes.size()));
  if (!timeline.unrecorded_nodes.empty()) {
    facts.set("nodes.unrecorded_names", fmt::format("{}", fmt::join(timeline.unrecorded_nodes, ", ")));
  } else {
    facts.set_missing("nodes.unrecorded_names", Missing{MissingReason::not_present, "every node the runs name recorded the job"});
  }
  std::int64_t consequences = 0;
  for (const auto& row : timeline.rows) consequences += row.role == RankRole::consequence;
  facts.set("nodes.consequence_runs", consequences);
  if (timeline.first) {
    const auto& first = timeline.rows[*timeline.first];
    facts.set("death.node", first.node, first.ref.pointer() + "/started");
  } else {
    facts.set_missing("death.node", Missing{MissingReason::not_present, "no run failed first"});
  }
}

}  // namespace ftdiag::facts
