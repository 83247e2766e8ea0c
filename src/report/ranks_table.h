// The ranks of a job side by side, in every format: each run of each node
// (node, rank, how it ended, when against the first failure, its memory
// peak) with the first failure marked and every other end said for what it
// was (facts/job_timeline.h). Shown when the job has two runs or more.
#pragma once

#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evidence/document.h"
#include "facts/incident.h"
#include "report/text_layout.h"

namespace ftdiag::report {

struct RanksTable {
  static constexpr std::array<const char*, 7> kColumns = {"node", "rank", "end", "at", "peak RSS", "role", "why"};
  std::vector<std::array<std::string, 7>> rows;
  std::vector<bool> first;         // per row: the first failure
  std::string heading;             // "4 runs on 2 nodes; times from the first failure"
  std::vector<std::string> notes;  // the clocks, the silent and unrecorded nodes, in words
  nlohmann::json json;             // the same, for the JSON report's "ranks"
};

// Empty rows when the job has fewer than two runs.
RanksTable ranks_table(const evidence::EvidenceDocument& document, const std::optional<facts::Incident>& incident);

std::string render_ranks_text(const RanksTable& table, const TextStyle& style);
std::string render_ranks_markdown(const RanksTable& table);
std::string render_ranks_html(const RanksTable& table);

}  // namespace ftdiag::report
