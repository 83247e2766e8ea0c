// What `ftdiag run` adds to the job's environment so the probes enter its
// processes (docs/probes.md): the crash handler on LD_PRELOAD, the Python
// probe first on PYTHONPATH, the run folder and the probe socket, and
// PYTHONFAULTHANDLER unless the user set it. The user's own entries are kept.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/fact.h"

namespace ftdiag::supervise {

struct ProbeFiles {
  Fact<std::filesystem::path> crash_library = Missing{};  // libftdiag_crash.so
  Fact<std::filesystem::path> python_folder = Missing{};  // holds sitecustomize.py
};

// Where the probes are: $FTDIAG_PROBE_DIR, else "probes" beside the ftdiag
// executable (a build tree), else the installed folder. Each Missing with
// where it looked.
ProbeFiles find_probe_files();

struct ProbeSetup {
  std::filesystem::path run_dir;
  std::optional<std::filesystem::path> probe_socket;  // absent when it could not be made
  ProbeFiles files;
};

// `environment` ("NAME=value" each) with the probes added. A probe whose
// file is missing is left out; the others still go in.
std::vector<std::string> add_probes_to_environment(std::vector<std::string> environment, const ProbeSetup& setup);

}  // namespace ftdiag::supervise
