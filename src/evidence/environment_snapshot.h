// The environment `ftdiag run` read as the job started (the GPUs, the Python
// installation the command uses, the host's settings), and its JSON form:
// environment.json in a run folder (journal/environment_file.h), read back
// into the host's evidence by `ftdiag analyze`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/fact.h"
#include "base/redact.h"
#include "evidence/document.h"

namespace ftdiag::evidence {

struct EnvironmentSnapshot {
  double time = 0;                   // when it was read
  std::vector<std::string> command;  // the job's command it was read for
  Fact<model::GpuInventory> gpu = Missing{MissingReason::not_present, "the GPUs were not probed"};
  Fact<model::PythonEnvironment> python = Missing{MissingReason::not_present, "the Python environment was not read"};
  Fact<model::SystemSettings> system = Missing{MissingReason::not_present, "the host's settings were not read"};

  bool operator==(const EnvironmentSnapshot&) const = default;
};

// The snapshot as JSON text, redacted unless Redaction::off
// (docs/redaction.md). Missing (failed) when it cannot be written as JSON.
Fact<std::string> environment_snapshot_json(const EnvironmentSnapshot& snapshot, Redaction redaction = Redaction::on);

// Missing (unparseable) with the reason when the text is not a snapshot.
Fact<EnvironmentSnapshot> parse_environment_snapshot(std::string_view text);

// Fills the host's gpu, python and system from the snapshot where the host
// has none yet (the first run's snapshot speaks for the host).
void add_to_host(const EnvironmentSnapshot& snapshot, HostEvidence& host);

}  // namespace ftdiag::evidence
