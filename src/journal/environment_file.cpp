#include "journal/environment_file.h"

#include "base/files_at.h"
#include "base/read_file.h"

namespace ftdiag::journal {

Fact<bool> write_environment_file(const RunDirectory& run, const evidence::EnvironmentSnapshot& snapshot,
                                  Redaction redaction) {
  auto text = evidence::environment_snapshot_json(snapshot, redaction);
  if (!text) return text.missing();
  return run.replace_file(kEnvironmentFileName, text.value());
}

Fact<bool> write_environment_file(const std::filesystem::path& file, const evidence::EnvironmentSnapshot& snapshot,
                                  Redaction redaction) {
  auto text = evidence::environment_snapshot_json(snapshot, redaction);
  if (!text) return text.missing();
  return replace_file(file, text.value());
}

Fact<evidence::EnvironmentSnapshot> read_environment_file(const std::filesystem::path& file) {
  // Ample: a snapshot lists a few dozen packages and libraries.
  auto text = read_small_file(file, 16 << 20);
  if (!text) return text.missing();
  auto snapshot = evidence::parse_environment_snapshot(text.value());
  if (!snapshot) return Missing{snapshot.missing().reason, file.string() + ": " + snapshot.missing().detail};
  return snapshot;
}

}  // namespace ftdiag::journal
