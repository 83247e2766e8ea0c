// A job's runs side by side: every rank of every node on one timeline (the
// nodes' clocks set against each other, node_clocks.h), the first failure
// named, and every other end marked as what it was: a consequence of the
// first failure (Slurm's or a launcher's teardown, a peer's lost connection),
// a clean finish, or a node that fell silent (its journal stops with no end:
// the node vanished, or its ftdiag was killed with it).
//
// The report's ranks table and the job.nodes / nodes.* facts are made from it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "evidence/document.h"
#include "facts/incident.h"
#include "facts/node_clocks.h"

namespace ftdiag::facts {

// A run that ended this long before the first failure (on the common clock)
// is not its consequence: the clocks agree to within it.
inline constexpr double kAcrossRunsSkew = 2.0;

enum class RankRole { first_failure, consequence, finished, silent, before, other_launch, unknown };
std::string_view to_string(RankRole role);

struct RankRow {
  evidence::RunRef ref;
  std::string directory;        // the run's folder
  std::string node;
  std::optional<int> rank;
  std::string end;              // "SIGKILL", "exit 1", "exit 0", "no end" (fell silent), "unreadable"
  std::string sender;           // who sent the signal, when traced: "the kernel", "slurmstepd", "ftdiag (forwarded from srun)"
  std::optional<double> at;     // when it ended (or fell silent), on the common clock
  std::optional<double> since_first;  // at less the first failure's at
  RankRole role = RankRole::unknown;
  std::string label;            // the role in two words: "first failure", "torn down", "failed after", "fell silent"
  std::string because;          // why this role, in words
  std::optional<evidence::Bytes> peak_rss;  // the run's job RSS peak
};

struct JobTimeline {
  NodeClocks clocks;
  std::vector<RankRow> rows;          // by their end on the common clock, silent and unknown ends last
  std::optional<std::size_t> first;   // the first failure's row
  std::size_t nodes = 0;              // nodes with a run
  std::vector<std::string> silent_nodes;  // nodes every run of which fell silent, the first to fall silent first
  // Seconds from the first silent node's last sign of life to the first death
  // elsewhere (positive: it fell silent first).
  std::optional<double> silent_lead;
  // Nodes the scheduler gave the job (SLURM_NNODES, SLURM_JOB_NODELIST in the
  // runs' placement) that left no run folder.
  std::optional<std::int64_t> expected_nodes;
  std::vector<std::string> unrecorded_nodes;
};

JobTimeline job_timeline(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident);

// Slurm's compact host list ("node[1-3,7],gpu-a01") expanded, at most
// `limit` names; empty when it is not one.
std::vector<std::string> expand_slurm_node_list(std::string_view list, std::size_t limit = 4096);

}  // namespace ftdiag::facts
