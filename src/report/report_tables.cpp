#include "report/report_tables.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/units.h"
#include "evidence/exit_status.h"
#include "facts/process_roles.h"
#include "facts/registry.h"

namespace ftdiag::report {

namespace {

constexpr std::size_t kCommandShown = 160;

std::string fact_text(const facts::FactSet& facts, const std::string& name) {
  const auto& entry = facts.get(name);
  if (!entry.value) return {};
  const auto* spec = facts::find_fact(name);
  return facts::format_value(entry.value.value(), spec ? spec->unit : facts::Unit::none);
}

}  // namespace

bool abnormal_death(const evidence::ProcessEvidence& process) {
  if (!process.death) return false;
  const auto& status = process.death->status;
  return !status || status->signal || status->exit_code.value_or(0) != 0;
}

std::string role_label(const facts::ProcessRole& role) {
  const std::string name = role.role == "dataloader-worker" ? "DataLoader worker" : role.role == "compile-worker" ? "compile worker" : role.role;
  if (!role.rank) return name;
  if (role.role == "rank") return fmt::format("rank {}", *role.rank);
  return fmt::format("{} of rank {}", name, *role.rank);
}

std::vector<std::pair<std::string, std::string>> environment_rows(const facts::FactSet& facts) {
  struct Row {
    const char* label;
    std::vector<const char*> names;  // joined with " × "
  };
  static const std::vector<Row> kRows = {
      {"Python", {"python.version"}},
      {"torch", {"torch.version"}},
      {"torch's CUDA", {"torch.cuda_version"}},
      {"DeepSpeed", {"deepspeed.version"}},
      {"CUDA toolkit (nvcc)", {"cuda.toolkit_version"}},
      {"GPU driver", {"gpu.driver_version"}},
      {"driver's CUDA", {"gpu.driver_cuda_version"}},
      {"GPUs", {"gpu.count", "gpu.name"}},
      {"GPU memory (all GPUs)", {"gpu.memory_total_bytes"}},
      {"host RAM", {"host.mem_total_bytes"}},
      {"node RAM (during the run)", {"node.mem_total_bytes"}},
      {"memory limit (cgroup)", {"host.cgroup_limit_bytes"}},
      {"/dev/shm", {"host.shm_total_bytes"}},
      {"ZeRO stage", {"config.zero_stage"}},
      {"precision", {"config.precision"}},
      {"fine-tuning", {"config.finetuning"}},
  };
  std::vector<std::pair<std::string, std::string>> rows;
  for (const auto& row : kRows) {
    std::vector<std::string> parts;
    for (const char* name : row.names) {
      if (auto text = fact_text(facts, name); !text.empty()) parts.push_back(text);
    }
    if (!parts.empty()) rows.emplace_back(row.label, fmt::format("{}", fmt::join(parts, " × ")));
  }
  return rows;
}

std::vector<DeathRow> abnormal_deaths(const evidence::RunEvidence& run) {
  const auto roles = facts::process_roles(run);
  std::vector<DeathRow> rows;
  for (std::size_t i = 0; i < run.processes.size(); ++i) {
    const auto& p = run.processes[i];
    if (!abnormal_death(p)) continue;
    const auto& status = p.death->status;
    std::string command = p.argv.empty() ? p.comm : fmt::format("{}", fmt::join(p.argv, " "));
    if (command.size() > kCommandShown) {
      const auto cut = command.rfind(' ', kCommandShown);
      command = command.substr(0, cut == std::string::npos ? kCommandShown : cut) + " …";
    }
    rows.push_back({p.pid, i < roles.size() ? role_label(roles[i]) : "", status ? status->describe() : "unknown",
                    "+" + format_duration(p.death->time - run.started.time), std::move(command)});
  }
  return rows;
}

}  // namespace ftdiag::report
