#include "evidence/environment_file.h"

#include <fmt/format.h>

#include "base/files_at.h"
#include "base/read_file.h"
#include "evidence/environment_fields.h"
#include "evidence/json_fields.h"
#include "evidence/json_input.h"
#include "evidence/redact_json.h"

namespace ftdiag::evidence {

template <>
struct Fields<EnvironmentSnapshot> {
  using T = EnvironmentSnapshot;
  static constexpr auto list = std::tuple{field("time", &T::time), field("command", &T::command), field("gpu", &T::gpu),
                                          field("python", &T::python), field("system", &T::system)};
};

namespace {

Fact<std::string> environment_text(const EnvironmentSnapshot& snapshot, Redaction redaction) {
  try {
    // The command line and the settings pass the journal's redaction step.
    nlohmann::json json = write_json(snapshot);
    if (redaction == Redaction::on) redact_json(json);
    return json.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  } catch (const std::exception& e) {
    return Missing{MissingReason::failed, fmt::format("cannot write the environment as JSON: {}", e.what())};
  }
}

}  // namespace

Fact<bool> write_environment_file(const RunDirectory& run, const EnvironmentSnapshot& snapshot, Redaction redaction) {
  auto text = environment_text(snapshot, redaction);
  if (!text) return text.missing();
  return run.replace_file(kEnvironmentFileName, text.value());
}

Fact<bool> write_environment_file(const std::filesystem::path& file, const EnvironmentSnapshot& snapshot, Redaction redaction) {
  auto text = environment_text(snapshot, redaction);
  if (!text) return text.missing();
  return replace_file(file, text.value());
}

Fact<EnvironmentSnapshot> read_environment_file(const std::filesystem::path& file) {
  // Ample: a snapshot lists a few dozen packages and libraries.
  auto text = read_small_file(file, 16 << 20);
  if (!text) return text.missing();
  auto parsed = parse_json_input(text.value());
  if (auto* failure = std::get_if<JsonInputError>(&parsed)) {
    return Missing{MissingReason::unparseable, fmt::format("{}: {}", file.string(), failure->describe())};
  }
  EnvironmentSnapshot snapshot;
  try {
    read_json(std::get<nlohmann::json>(parsed), snapshot);
  } catch (const std::exception& e) {
    return Missing{MissingReason::unparseable, fmt::format("{}: {}", file.string(), e.what())};
  }
  return snapshot;
}

void add_to_host(const EnvironmentSnapshot& snapshot, HostEvidence& host) {
  if (!host.gpu && snapshot.gpu) host.gpu = snapshot.gpu;
  if (!host.python && snapshot.python) host.python = snapshot.python;
  if (!host.system && snapshot.system) host.system = snapshot.system;
}

}  // namespace ftdiag::evidence
