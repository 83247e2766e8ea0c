// A real Slurm cluster for a test (tests/slurm/cluster.sh): slurmctld and
// several `slurmd -N nodeK` on this machine, memory enforced by Slurm's own
// cgroup plugin, all under the test's temporary folder; stopped when the
// object goes. Jobs go through the real sbatch, srun and scancel.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "integration/harness.h"

namespace ftdiag::itest {

class SlurmCluster {
 public:
  // Starts `nodes` nodes; check available() (false: why_not() says why,
  // and the test is skipped: no root, Slurm not installed).
  SlurmCluster(const fs::path& dir, int nodes);
  ~SlurmCluster();
  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;

  bool available() const { return available_; }
  const std::string& why_not() const { return why_not_; }

  // Runs a Slurm command (sbatch, squeue, scancel, ...) against this cluster.
  Outcome command(std::vector<std::string> argv, double seconds = kDeadlineSeconds) const;
  // Submits a batch script; the job id, or nullopt (the test fails with why).
  std::optional<std::string> submit(const fs::path& script, const std::vector<std::string>& options) const;
  // Waits until the job has left the queue (ended, however); false at the deadline.
  bool wait_for_end(const std::string& job, double seconds) const;
  // The pid of node `name`'s slurmd.
  int slurmd_pid(const std::string& name) const;

 private:
  fs::path dir_;
  bool available_ = false;
  std::string why_not_;
};

}  // namespace ftdiag::itest
