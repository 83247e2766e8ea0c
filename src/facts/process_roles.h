// What each process of a run is to the job: the launcher (torchrun,
// deepspeed, accelerate, mpirun, srun, or a script that spawns the ranks),
// a rank, a DataLoader worker (or another worker of a rank), a compile
// worker, or a helper. Derived from the tree, the command lines, the role
// variables of the environment (RANK, LOCAL_RANK) and what the console said
// about a pid ("DataLoader worker (pid N) is killed by signal"). Documented
// in docs/facts.md (death.role).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "evidence/document.h"

namespace ftdiag::facts {

struct ProcessRole {
  std::string role;          // "launcher", "rank", "dataloader-worker", "worker", "compile-worker", "helper", "job"
  std::optional<int> rank;   // a rank's (or its worker's) rank, when the environment or command line says
  std::string because;       // how it was told: "RANK=1 in its environment", "the console named it a DataLoader worker"
};

// One per process of run.processes, in the same order.
std::vector<ProcessRole> process_roles(const evidence::RunEvidence& run);

}  // namespace ftdiag::facts
