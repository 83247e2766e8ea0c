#include "supervise/job_identity.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <string_view>

#include "base/read_file.h"

namespace ftdiag::supervise {

namespace {
// A name or a number; a longer value is not one of these variables' own.
constexpr std::size_t kMaxPlacementValue = 128;
}  // namespace

std::optional<int> rank_from_environment() {
  for (const char* variable : {"RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK"}) {
    const char* value = std::getenv(variable);
    if (!value || !*value) continue;
    int rank = 0;
    std::string_view text(value);
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), rank);
    if (error == std::errc() && end == text.data() + text.size() && rank >= 0) return rank;
  }
  return std::nullopt;
}

std::string scheduler_job_from_environment() {
  auto get = [](const char* name) -> std::string {
    const char* value = std::getenv(name);
    return value ? std::string(value) : std::string();
  };
  if (auto job = get("SLURM_JOB_ID"); !job.empty()) {
    auto step = get("SLURM_STEP_ID");
    return "slurm " + job + (step.empty() ? "" : "." + step);
  }
  if (auto job = get("PBS_JOBID"); !job.empty()) return "pbs " + job;
  if (auto job = get("LSB_JOBID"); !job.empty()) return "lsf " + job;
  if (!get("KUBERNETES_SERVICE_HOST").empty() && !get("HOSTNAME").empty()) return "kubernetes " + get("HOSTNAME");
  return {};
}

std::string node_name_from_environment() {
  const char* value = std::getenv("SLURMD_NODENAME");
  return value ? std::string(value).substr(0, kMaxPlacementValue) : std::string();
}

std::map<std::string, std::string> placement_from_environment() {
  static constexpr const char* kNames[] = {
      "SLURM_JOB_ID", "SLURM_STEP_ID", "SLURM_NODEID", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NNODES",
      "SLURM_NTASKS", "SLURM_JOB_NODELIST", "SLURMD_NODENAME", "RANK", "LOCAL_RANK", "GROUP_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE",
      "NODE_RANK", "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RUN_ID", "TORCHELASTIC_RESTART_COUNT",
      "OMPI_COMM_WORLD_RANK", "PMI_RANK"};
  std::map<std::string, std::string> placement;
  for (const char* name : kNames) {
    if (const char* value = std::getenv(name); value && *value) placement[name] = std::string(value).substr(0, kMaxPlacementValue);
  }
  if (const char* pod = std::getenv("HOSTNAME"); pod && *pod && std::getenv("KUBERNETES_SERVICE_HOST")) {
    placement["HOSTNAME"] = std::string(pod).substr(0, kMaxPlacementValue);
  }
  return placement;
}

std::string current_directory() {
  char buffer[PATH_MAX];
  if (::getcwd(buffer, sizeof buffer) == nullptr) return {};
  return buffer;
}

Fact<std::string> read_own_oom_score_adj() {
  auto text = read_small_file("/proc/self/oom_score_adj", 64);
  if (!text) return text.missing();
  auto value = std::move(text).value();
  while (!value.empty() && (value.back() == '\n' || value.back() == ' ')) value.pop_back();
  return value;
}

Fact<bool> lower_own_oom_score_adj() {
  int fd = ::open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return missing_from_errno(errno, "open /proc/self/oom_score_adj");
  constexpr std::string_view kLowest = "-999";
  ssize_t n = ::write(fd, kLowest.data(), kLowest.size());
  int error = errno;
  ::close(fd);
  if (n < 0) return missing_from_errno(error, "lower /proc/self/oom_score_adj (needs CAP_SYS_RESOURCE)");
  return true;
}

}  // namespace ftdiag::supervise
