// The clocks of a job's nodes set against each other.
//
// Each node's ftdiag stamps its records with its own wall clock; clocks of
// a cluster drift apart by seconds or more when NTP fails, which is enough
// to put a consequence before its cause. Runs of one scheduler step start
// together (srun starts every task of a step within a moment), so the start
// of each node's runs is a shared event: a node whose runs all started well
// before or after the others' has a clock that far off, and its times are
// moved by that much before deaths of different nodes are compared.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "evidence/document.h"

namespace ftdiag::facts {

// Starts of one step's tasks are this close on clocks that agree (the
// launch's own spread and ftdiag's start); a larger difference is the clock.
inline constexpr double kLaunchSpreadSeconds = 2.0;

struct NodeClockOffset {
  std::string node;
  double offset_s = 0;  // added to the node's times to put them on the common clock
};

class NodeClocks {
 public:
  // Estimated from the runs that share a Slurm step (their run records'
  // scheduler_job); nodes outside it keep their clocks as they are.
  static NodeClocks estimate(const evidence::EvidenceDocument& document);

  // `time` of a run on the common clock.
  double common(const evidence::EvidenceDocument& document, const evidence::RunRef& ref, double time) const;
  double offset_of(const std::string& node) const;

  // Only nodes whose clock was moved (by more than kLaunchSpreadSeconds).
  const std::vector<NodeClockOffset>& moved() const { return moved_; }
  // The node whose clock the others are set against; empty when none was estimated.
  const std::string& reference() const { return reference_; }
  // How the clocks were set against each other, or why they were not, in words.
  const std::string& basis() const { return basis_; }

 private:
  std::map<std::string, double> offsets_;
  std::vector<NodeClockOffset> moved_;
  std::string reference_;
  std::string basis_;
};

}  // namespace ftdiag::facts
