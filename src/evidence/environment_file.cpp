#include "evidence/environment_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

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

Fact<bool> write_environment_file(const std::filesystem::path& file, const EnvironmentSnapshot& snapshot) {
  std::string text;
  try {
    // The command line and the settings pass the journal's redaction step.
    nlohmann::json json = write_json(snapshot);
    redact_json(json);
    text = json.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  } catch (const std::exception& e) {
    return Missing{MissingReason::failed, fmt::format("cannot write the environment as JSON: {}", e.what())};
  }
  const auto temporary = file.string() + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return missing_from_errno(errno, "open " + temporary);
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : ENOSPC;
      ::close(fd);
      ::unlink(temporary.c_str());
      return missing_from_errno(error, "write " + temporary);
    }
    written += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0 || ::rename(temporary.c_str(), file.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    return missing_from_errno(error, "rename to " + file.string());
  }
  return true;
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
