// environment.json in a run folder: the environment `ftdiag run` read as the
// job started (the GPUs, the Python installation the command uses, the
// host's settings), written once by the snapshot beside the job and read
// back into the host's evidence by `ftdiag analyze`.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "base/fact.h"
#include "base/redact.h"
#include "evidence/document.h"
#include "evidence/job_directory.h"

namespace ftdiag::evidence {

inline constexpr const char* kEnvironmentFileName = "environment.json";

struct EnvironmentSnapshot {
  double time = 0;                   // when it was read
  std::vector<std::string> command;  // the job's command it was read for
  Fact<model::GpuInventory> gpu = Missing{MissingReason::not_present, "the GPUs were not probed"};
  Fact<model::PythonEnvironment> python = Missing{MissingReason::not_present, "the Python environment was not read"};
  Fact<model::SystemSettings> system = Missing{MissingReason::not_present, "the host's settings were not read"};

  bool operator==(const EnvironmentSnapshot&) const = default;
};

// Writes it whole or not at all (a temporary file renamed into place: a
// reader never sees half a snapshot), redacted unless Redaction::off
// (docs/redaction.md), mode 0600, never through a link (base/files_at.h):
// into a run folder by its open descriptor, or at a path the user named
// (preflight --save-environment).
Fact<bool> write_environment_file(const RunDirectory& run, const EnvironmentSnapshot& snapshot,
                                  Redaction redaction = Redaction::on);
Fact<bool> write_environment_file(const std::filesystem::path& file, const EnvironmentSnapshot& snapshot,
                                  Redaction redaction = Redaction::on);

// Missing with the reason when absent, unreadable or malformed.
Fact<EnvironmentSnapshot> read_environment_file(const std::filesystem::path& file);

// Fills the host's gpu, python and system from the snapshot where the host
// has none yet (the first run's snapshot speaks for the host).
void add_to_host(const EnvironmentSnapshot& snapshot, HostEvidence& host);

}  // namespace ftdiag::evidence
