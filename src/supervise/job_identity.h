// Facts about where the job runs, gathered once when it starts, and the
// supervisor's own standing with the OOM killer.
#pragma once

#include <optional>
#include <string>

#include "base/fact.h"
#include "collect/host/host_name.h"

namespace ftdiag::supervise {

using collect::host_name;

// The rank of this `ftdiag run` among the job's ranks: RANK (torchrun,
// accelerate), SLURM_PROCID (srun), OMPI_COMM_WORLD_RANK (mpirun), PMI_RANK.
std::optional<int> rank_from_environment();

// The scheduler's name for this job, from its environment: "slurm 1234.0"
// (SLURM_JOB_ID, SLURM_STEP_ID), "pbs 42.server", "lsf 77", "kubernetes
// pod-name" (inside a pod, HOSTNAME is the pod's name); empty outside any.
std::string scheduler_job_from_environment();

std::string current_directory();

// ftdiag's own /proc/self/oom_score_adj as it found it.
Fact<std::string> read_own_oom_score_adj();

// Makes ftdiag the OOM killer's last choice (-999: never chosen while any
// process of the job remains, but not immune, so a cgroup whose job is gone
// can still be relieved). Lowering needs CAP_SYS_RESOURCE; the job gets the
// original value back before exec.
Fact<bool> lower_own_oom_score_adj();

}  // namespace ftdiag::supervise
