#include "facts/process_roles.h"

#include <algorithm>
#include <charconv>
#include <map>

#include <fmt/format.h>

#include "base/text.h"

namespace ftdiag::facts {

namespace {

using evidence::ProcessEvidence;
using evidence::RunEvidence;

std::string basename_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool any_argument(const ProcessEvidence& p, std::initializer_list<std::string_view> needles) {
  for (const auto& argument : p.argv) {
    for (auto needle : needles) {
      if (argument.find(needle) != std::string::npos) return true;
    }
  }
  return false;
}

// A count or an index: a whole decimal number, not negative.
std::optional<int> to_int(std::string_view text) {
  const auto value = ftdiag::text::to_int(text);
  return value && *value >= 0 ? value : std::nullopt;
}

bool is_launcher_command(const ProcessEvidence& p) {
  if (!p.argv.empty()) {
    const auto program = basename_of(p.argv[0]);
    for (const char* name : {"torchrun", "deepspeed", "accelerate", "mpirun", "mpiexec", "srun", "horovodrun", "llamafactory-cli"}) {
      if (program == name) return true;
    }
  }
  return any_argument(p, {"torch.distributed.run", "torch.distributed.launch", "deepspeed.launcher.launch",
                          "deepspeed/launcher/launch.py", "accelerate.commands.launch", "accelerate/commands/launch.py"});
}

bool is_compile_worker(const ProcessEvidence& p) {
  for (const char* name : {"cc1plus", "cc1", "nvcc", "ptxas", "ninja", "ld", "as", "cicc", "ld.lld"}) {
    if (p.comm == name) return true;
  }
  return any_argument(p, {"compile_worker", "torch/_inductor", "triton/compiler"});
}

bool is_python(const ProcessEvidence& p) {
  return p.comm.rfind("python", 0) == 0 || p.comm.rfind("pt_", 0) == 0 ||
         (!p.argv.empty() && basename_of(p.argv[0]).rfind("python", 0) == 0);
}

// multiprocessing's own helpers, not workers of the training.
bool is_multiprocessing_helper(const ProcessEvidence& p) {
  return any_argument(p, {"multiprocessing.resource_tracker", "multiprocessing.forkserver", "multiprocessing.semaphore_tracker"});
}

std::optional<int> rank_from(const ProcessEvidence& p, std::string& because) {
  for (const char* name : {"RANK", "LOCAL_RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK"}) {
    if (auto it = p.environment.find(name); it != p.environment.end()) {
      if (auto rank = to_int(it->second)) {
        because = fmt::format("{}={} in its environment", name, it->second);
        return rank;
      }
    }
  }
  for (const auto& argument : p.argv) {
    for (std::string_view prefix : {"--local_rank=", "--local-rank="}) {
      if (argument.rfind(prefix, 0) == 0) {
        if (auto rank = to_int(std::string_view(argument).substr(prefix.size()))) {
          because = "its command line has " + argument;
          return rank;
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<ProcessRole> process_roles(const RunEvidence& run) {
  std::map<int, std::size_t> index_of;
  for (std::size_t i = 0; i < run.processes.size(); ++i) index_of.emplace(run.processes[i].pid, i);
  // Pids the console named as DataLoader workers (the printer's pid
  // namespace is the job's: a rank prints its own workers' pids).
  std::map<int, bool> named_workers;
  for (const auto& event : run.console.events) {
    if (event.kind != "worker-died" || !event.pid) continue;
    auto source = event.details.find("source");
    // A DataLoader's own message names a DataLoader worker; multiprocessing's
    // names some worker of a pool.
    named_workers[*event.pid] = source != event.details.end() && source->second == "pytorch-dataloader";
  }
  std::vector<ProcessRole> roles(run.processes.size());
  // Parents come before children in order of first sight; a process's role
  // needs its ancestors' first.
  std::vector<std::size_t> order(run.processes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return run.processes[a].first_seen < run.processes[b].first_seen; });
  auto parent_role = [&](const ProcessEvidence& p) -> const ProcessRole* {
    auto it = index_of.find(p.ppid);
    return it == index_of.end() || it->second >= roles.size() ? nullptr : &roles[it->second];
  };
  auto named_worker = [&](const ProcessEvidence& p) {
    auto named = [&](int pid) {
      auto it = named_workers.find(pid);
      return it != named_workers.end() && it->second;
    };
    return named(p.pid) || std::any_of(p.nspid.begin(), p.nspid.end(), named);
  };
  for (std::size_t i : order) {
    const auto& p = run.processes[i];
    auto& role = roles[i];
    const auto* parent = parent_role(p);
    const auto* parent_process = [&]() -> const ProcessEvidence* {
      auto it = index_of.find(p.ppid);
      return it == index_of.end() ? nullptr : &run.processes[it->second];
    }();
    std::string because;
    const auto rank = rank_from(p, because);
    // A child that inherited its parent's rank is a worker of it; one whose
    // RANK its parent does not share was given its own by a launcher (the
    // ranks of a per-node torchrun under srun, whose agent has only Slurm's
    // SLURM_PROCID).
    const bool own_rank = rank && parent_process && p.environment.contains("RANK") &&
                          (!parent_process->environment.contains("RANK") ||
                           parent_process->environment.at("RANK") != p.environment.at("RANK"));
    const bool under_rank = !own_rank && parent && (parent->role == "rank" || parent->role == "worker" || parent->role == "dataloader-worker");
    if (named_worker(p) || p.comm == "pt_data_worker") {
      role = {"dataloader-worker", parent ? parent->rank : std::nullopt,
              named_worker(p) ? "the console named its pid as a DataLoader worker" : "its name is pt_data_worker"};
    } else if (is_compile_worker(p)) {
      role = {"compile-worker", std::nullopt, "its command is a compiler's"};
    } else if (is_launcher_command(p)) {
      role = {"launcher", std::nullopt, "its command is a launcher's"};
    } else if (is_multiprocessing_helper(p)) {
      role = {"helper", std::nullopt, "multiprocessing's own helper"};
    } else if (under_rank && is_python(p)) {
      role = {"worker", parent->rank, "a Python child of a rank (a DataLoader or pool worker)"};
    } else if (rank) {
      role = {"rank", rank, because};
    } else if (parent && (parent->role == "launcher" || parent->role == "job") && is_python(p) &&
               any_argument(p, {"multiprocessing.spawn", "spawn_main"})) {
      role = {"rank", std::nullopt, "started by the job's spawn of its ranks (torch.multiprocessing)"};
    } else if (p.pid == run.started.job_pid) {
      role = {"job", std::nullopt, "the command ftdiag ran"};
    } else {
      role = {"helper", std::nullopt, "none of the above"};
    }
  }
  // A job whose children are ranks is their launcher, whatever its command;
  // so is a "rank" without a RANK of its own whose children have theirs (a
  // launcher under srun sees SLURM_PROCID, its task's number).
  for (std::size_t i = 0; i < run.processes.size(); ++i) {
    const bool rank_by_task = roles[i].role == "rank" && !run.processes[i].environment.contains("RANK");
    if (roles[i].role != "job" && !rank_by_task) continue;
    for (std::size_t j = 0; j < run.processes.size(); ++j) {
      if (run.processes[j].ppid == run.processes[i].pid && roles[j].role == "rank") {
        roles[i] = {"launcher", std::nullopt, "it started the ranks"};
        break;
      }
    }
  }
  return roles;
}

}  // namespace ftdiag::facts
