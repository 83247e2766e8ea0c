#include "parse/procfs/proc_environ.h"

#include <algorithm>
#include <array>

namespace ftdiag::parse {

namespace {

constexpr std::size_t kMaxValueBytes = 256;

// torchrun / torch.distributed.elastic, accelerate and DeepSpeed set the
// first group; Slurm, Open MPI and PMI the others.
constexpr std::array kRoleVariables = {
    std::string_view("RANK"),           std::string_view("LOCAL_RANK"),        std::string_view("WORLD_SIZE"),
    std::string_view("LOCAL_WORLD_SIZE"), std::string_view("GROUP_RANK"),      std::string_view("ROLE_NAME"),
    std::string_view("TORCHELASTIC_RUN_ID"), std::string_view("SLURM_PROCID"), std::string_view("SLURM_LOCALID"),
    std::string_view("OMPI_COMM_WORLD_RANK"), std::string_view("OMPI_COMM_WORLD_LOCAL_RANK"), std::string_view("PMI_RANK"),
};

}  // namespace

bool is_role_variable(std::string_view name) {
  return std::find(kRoleVariables.begin(), kRoleVariables.end(), name) != kRoleVariables.end();
}

std::map<std::string, std::string> parse_role_environment(std::string_view text) {
  std::map<std::string, std::string> kept;
  while (!text.empty()) {
    const auto end = text.find('\0');
    const std::string_view entry = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    const auto equals = entry.find('=');
    if (equals == std::string_view::npos) continue;
    const auto name = entry.substr(0, equals);
    if (is_role_variable(name)) kept[std::string(name)] = std::string(entry.substr(equals + 1, kMaxValueBytes));
  }
  return kept;
}

}  // namespace ftdiag::parse
