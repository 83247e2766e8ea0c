// Process roles from the tree, command lines, role variables and the
// console: the launcher, its ranks, their DataLoader workers, compile
// workers and helpers, as torchrun and torch.multiprocessing lay them out.
#include <doctest/doctest.h>

#include "evidence_builder.h"
#include "facts/process_roles.h"

using namespace ftdiag;
using namespace ftdiag::facts;
using namespace ftdiag::facts::testing;

namespace {

evidence::ProcessEvidence& child(evidence::RunEvidence& run, int pid, int ppid, std::vector<std::string> argv, double at,
                                 std::string comm = "python3") {
  auto& p = add_process(run, pid, std::move(argv));
  p.ppid = ppid;
  p.comm = std::move(comm);
  p.first_seen = kStart + at;
  return p;
}

const ProcessRole& role_of(const evidence::RunEvidence& run, const std::vector<ProcessRole>& roles, int pid) {
  for (std::size_t i = 0; i < run.processes.size(); ++i) {
    if (run.processes[i].pid == pid) return roles[i];
  }
  FAIL("no process ", pid);
  return roles.front();
}

}  // namespace

TEST_CASE("roles: torchrun, ranks with RANK, their forked DataLoader workers, a compile worker") {
  auto run = run_started();
  child(run, kJobPid, 1, {"/usr/bin/python3", "-m", "torch.distributed.run", "--nproc_per_node=2", "train.py"}, 0);
  child(run, 101, kJobPid, {"/usr/bin/python3", "-u", "train.py"}, 1).environment = {{"RANK", "0"}, {"LOCAL_RANK", "0"}};
  child(run, 102, kJobPid, {"/usr/bin/python3", "-u", "train.py"}, 1).environment = {{"RANK", "1"}, {"LOCAL_RANK", "1"}};
  // A forked worker inherits the rank's command line and environment.
  child(run, 201, 101, {"/usr/bin/python3", "-u", "train.py"}, 5).environment = {{"RANK", "0"}};
  child(run, 202, 102, {"/usr/bin/python3", "-u", "train.py"}, 5).environment = {{"RANK", "1"}};
  child(run, 301, 101, {"cc1plus", "-quiet", "kernel.cpp"}, 6, "cc1plus");
  child(run, 401, kJobPid, {"/bin/sh", "-c", "nvidia-smi"}, 2, "sh");
  evidence::LogEvent died{.kind = "worker-died", .text = "RuntimeError: DataLoader worker (pid 202) is killed by signal: Killed."};
  died.pid = 202;
  died.details = {{"source", "pytorch-dataloader"}};
  run.console.events.push_back(died);

  const auto roles = process_roles(run);
  CHECK(role_of(run, roles, kJobPid).role == "launcher");
  CHECK(role_of(run, roles, 101).role == "rank");
  CHECK(role_of(run, roles, 101).rank == 0);
  CHECK(role_of(run, roles, 102).rank == 1);
  CHECK(role_of(run, roles, 101).because == "RANK=0 in its environment");
  CHECK(role_of(run, roles, 201).role == "worker");
  CHECK(role_of(run, roles, 201).rank == 0);
  CHECK(role_of(run, roles, 202).role == "dataloader-worker");
  CHECK(role_of(run, roles, 202).rank == 1);
  CHECK(role_of(run, roles, 301).role == "compile-worker");
  CHECK(role_of(run, roles, 401).role == "helper");
}

TEST_CASE("roles: a script that spawns its ranks with torch.multiprocessing is their launcher") {
  auto run = run_started();
  child(run, kJobPid, 1, {"/usr/bin/python3", "train.py"}, 0);
  const std::vector<std::string> spawned = {"/usr/bin/python3", "-c",
                                            "from multiprocessing.spawn import spawn_main; spawn_main(tracker_fd=5, pipe_handle=7)",
                                            "--multiprocessing-fork"};
  child(run, 110, kJobPid, {"/usr/bin/python3", "-c", "from multiprocessing.resource_tracker import main;main(4)"}, 1);
  child(run, 111, kJobPid, spawned, 1);
  child(run, 112, kJobPid, spawned, 1);
  child(run, 211, 111, spawned, 4);  // a worker started with the spawn method: same kind of command line

  const auto roles = process_roles(run);
  CHECK(role_of(run, roles, kJobPid).role == "launcher");
  CHECK(role_of(run, roles, 110).role == "helper");
  CHECK(role_of(run, roles, 111).role == "rank");
  CHECK_FALSE(role_of(run, roles, 111).rank.has_value());
  CHECK(role_of(run, roles, 112).role == "rank");
  CHECK(role_of(run, roles, 211).role == "worker");
}

TEST_CASE("roles: a single-process job is the job, DeepSpeed's --local_rank names the rank") {
  auto run = run_started();
  child(run, kJobPid, 1, {"/usr/bin/python3", "train.py"}, 0);
  auto roles = process_roles(run);
  CHECK(role_of(run, roles, kJobPid).role == "job");

  auto ds = run_started();
  child(ds, kJobPid, 1, {"/usr/bin/python3", "-u", "-m", "deepspeed.launcher.launch", "--world_info=e30="}, 0);
  child(ds, 101, kJobPid, {"/usr/bin/python3", "-u", "main.py", "--local_rank=3", "--deepspeed"}, 1);
  roles = process_roles(ds);
  CHECK(role_of(ds, roles, kJobPid).role == "launcher");
  CHECK(role_of(ds, roles, 101).role == "rank");
  CHECK(role_of(ds, roles, 101).rank == 3);
  CHECK(role_of(ds, roles, 101).because == "its command line has --local_rank=3");
}

TEST_CASE("roles: a per-node agent under srun (SLURM_PROCID only) is the launcher of ranks with their own RANK, whose workers stay workers") {
  auto run = run_started();
  auto& agent = add_process(run, kJobPid, {"python3", "my_launcher.py", "--nnodes", "2", "train.py"});
  agent.comm = "python3";
  agent.environment = {{"SLURM_PROCID", "1"}, {"SLURM_LOCALID", "0"}};
  auto& rank2 = child(run, 201, kJobPid, {"python3", "-u", "train.py"}, 1);
  rank2.environment = {{"SLURM_PROCID", "1"}, {"RANK", "2"}, {"LOCAL_RANK", "0"}};
  auto& rank3 = child(run, 202, kJobPid, {"python3", "-u", "train.py"}, 1);
  rank3.environment = {{"SLURM_PROCID", "1"}, {"RANK", "3"}, {"LOCAL_RANK", "1"}};
  auto& worker = child(run, 301, 202, {"python3", "-u", "train.py"}, 2);
  worker.environment = rank3.environment;  // a DataLoader worker inherits its rank's environment
  const auto roles = process_roles(run);
  CHECK(role_of(run, roles, kJobPid).role == "launcher");
  CHECK(role_of(run, roles, 201).role == "rank");
  CHECK(role_of(run, roles, 201).rank == 2);
  CHECK(role_of(run, roles, 202).role == "rank");
  CHECK(role_of(run, roles, 202).rank == 3);
  CHECK(role_of(run, roles, 301).role == "worker");
  CHECK(role_of(run, roles, 301).rank == 3);
}
