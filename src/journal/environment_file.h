// environment.json in a run folder: the environment `ftdiag run` read as the
// job started (evidence/environment_snapshot.h), written once by the
// snapshot beside the job and read back into the host's evidence by
// `ftdiag analyze`.
#pragma once

#include <filesystem>

#include "base/fact.h"
#include "base/redact.h"
#include "evidence/environment_snapshot.h"
#include "journal/job_directory.h"

namespace ftdiag::journal {

inline constexpr const char* kEnvironmentFileName = "environment.json";

// Writes it whole or not at all (a temporary file renamed into place: a
// reader never sees half a snapshot), redacted unless Redaction::off
// (docs/redaction.md), mode 0600, never through a link (base/files_at.h):
// into a run folder by its open descriptor, or at a path the user named
// (preflight --save-environment).
Fact<bool> write_environment_file(const RunDirectory& run, const evidence::EnvironmentSnapshot& snapshot,
                                  Redaction redaction = Redaction::on);
Fact<bool> write_environment_file(const std::filesystem::path& file, const evidence::EnvironmentSnapshot& snapshot,
                                  Redaction redaction = Redaction::on);

// Missing with the reason when absent, unreadable or malformed.
Fact<evidence::EnvironmentSnapshot> read_environment_file(const std::filesystem::path& file);

}  // namespace ftdiag::journal
