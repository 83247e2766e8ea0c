// Where ftdiag's probes are: the crash handler and the Python probe that
// `ftdiag run` puts into a job (supervise/probe_environment.h), and the GPU
// probe it runs beside one (collect/helpers/gpu_probe.h).
#pragma once

#include <filesystem>
#include <vector>

#include "base/fact.h"

namespace ftdiag::collect {

// The folders looked in, in order: $FTDIAG_PROBE_DIR when set, "probes"
// beside the running executable (a build tree), the installed folder.
std::vector<std::filesystem::path> probe_folders();

// The first readable `relative` under those folders; Missing (not_present)
// naming every place looked at.
Fact<std::filesystem::path> find_probe_file(const std::filesystem::path& relative);

}  // namespace ftdiag::collect
