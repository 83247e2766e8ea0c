// Facts about where the job runs, gathered once when it starts, and the
// supervisor's own standing with the OOM killer.
#pragma once

#include <map>
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

// The node's name as the scheduler knows it: SLURMD_NODENAME (srun, sbatch;
// with several slurmd on one machine, each node's own name). Empty outside
// Slurm: the host name is the node's name there (a Kubernetes pod's host
// name is the pod's name).
std::string node_name_from_environment();

// The variables that place this process in a distributed job, as set:
// Slurm's (SLURM_JOB_ID, SLURM_STEP_ID, SLURM_NODEID, SLURM_PROCID,
// SLURM_LOCALID, SLURM_NNODES, SLURM_NTASKS, SLURM_JOB_NODELIST), torchrun's and accelerate's
// (RANK, LOCAL_RANK, GROUP_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, NODE_RANK,
// MASTER_ADDR, MASTER_PORT, TORCHELASTIC_RUN_ID, TORCHELASTIC_RESTART_COUNT),
// MPI's (OMPI_COMM_WORLD_RANK, PMI_RANK) and a pod's (HOSTNAME under
// Kubernetes). Values are kept short; nothing else of the environment is read.
std::map<std::string, std::string> placement_from_environment();

std::string current_directory();

// ftdiag's own /proc/self/oom_score_adj as it found it.
Fact<std::string> read_own_oom_score_adj();

// Makes ftdiag the OOM killer's last choice (-999: never chosen while any
// process of the job remains, but not immune, so a cgroup whose job is gone
// can still be relieved). Lowering needs CAP_SYS_RESOURCE; the job gets the
// original value back before exec.
Fact<bool> lower_own_oom_score_adj();

}  // namespace ftdiag::supervise
