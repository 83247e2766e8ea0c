#include "evidence/environment_snapshot.h"

#include <fmt/format.h>

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

Fact<std::string> environment_snapshot_json(const EnvironmentSnapshot& snapshot, Redaction redaction) {
  try {
    // The command line and the settings pass the journal's redaction step.
    nlohmann::json json = write_json(snapshot);
    if (redaction == Redaction::on) redact_json(json);
    return json.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  } catch (const std::exception& e) {
    return Missing{MissingReason::failed, fmt::format("cannot write the environment as JSON: {}", e.what())};
  }
}

Fact<EnvironmentSnapshot> parse_environment_snapshot(std::string_view text) {
  auto parsed = parse_json_input(text);
  if (auto* failure = std::get_if<JsonInputError>(&parsed)) return Missing{MissingReason::unparseable, failure->describe()};
  EnvironmentSnapshot snapshot;
  try {
    read_json(std::get<nlohmann::json>(parsed), snapshot);
  } catch (const std::exception& e) {
    return Missing{MissingReason::unparseable, e.what()};
  }
  return snapshot;
}

void add_to_host(const EnvironmentSnapshot& snapshot, HostEvidence& host) {
  if (!host.gpu && snapshot.gpu) host.gpu = snapshot.gpu;
  if (!host.python && snapshot.python) host.python = snapshot.python;
  if (!host.system && snapshot.system) host.system = snapshot.system;
}

}  // namespace ftdiag::evidence
