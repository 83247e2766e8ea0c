#include "supervise/probe_environment.h"

#include <unistd.h>

#include <cstdlib>

namespace ftdiag::supervise {

namespace fs = std::filesystem;

namespace {

constexpr const char* kCrashLibrary = "libftdiag_crash.so";

std::optional<std::string> value_of(const std::vector<std::string>& environment, std::string_view name) {
  for (const auto& entry : environment) {
    if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 && entry[name.size()] == '=') {
      return entry.substr(name.size() + 1);
    }
  }
  return std::nullopt;
}

void set(std::vector<std::string>& environment, std::string_view name, const std::string& value) {
  for (auto& entry : environment) {
    if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 && entry[name.size()] == '=') {
      entry = std::string(name) + "=" + value;
      return;
    }
  }
  environment.push_back(std::string(name) + "=" + value);
}

std::vector<fs::path> probe_folders() {
  std::vector<fs::path> folders;
  if (const char* dir = std::getenv("FTDIAG_PROBE_DIR"); dir && *dir) folders.emplace_back(dir);
  std::error_code ec;
  const auto self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) folders.push_back(self.parent_path() / "probes");
#ifdef FTDIAG_INSTALLED_PROBE_DIR
  folders.emplace_back(FTDIAG_INSTALLED_PROBE_DIR);
#endif
  return folders;
}

Fact<fs::path> find_in(const std::vector<fs::path>& folders, const fs::path& relative) {
  std::string looked;
  for (const auto& folder : folders) {
    const auto candidate = folder / relative;
    if (::access(candidate.c_str(), R_OK) == 0) return candidate;
    looked += (looked.empty() ? "" : ", ") + candidate.string();
  }
  return Missing{MissingReason::not_present, "not found (looked at " + looked + ")"};
}

}  // namespace

ProbeFiles find_probe_files() {
  const auto folders = probe_folders();
  ProbeFiles files;
  files.crash_library = find_in(folders, kCrashLibrary);
  auto sitecustomize = find_in(folders, fs::path("python") / "sitecustomize.py");
  if (sitecustomize) {
    files.python_folder = sitecustomize->parent_path();
  } else {
    files.python_folder = sitecustomize.missing();
  }
  return files;
}

std::vector<std::string> add_probes_to_environment(std::vector<std::string> environment, const ProbeSetup& setup) {
  set(environment, "FTDIAG_RUN_DIR", fs::absolute(setup.run_dir).string());
  if (setup.probe_socket) set(environment, "FTDIAG_PROBE_SOCKET", fs::absolute(*setup.probe_socket).string());
  if (setup.files.crash_library) {
    // After the user's own entries: a library they preload (an allocator)
    // keeps its place, and the handler still interposes what it must.
    const auto preload = value_of(environment, "LD_PRELOAD").value_or("");
    const auto library = setup.files.crash_library->string();
    set(environment, "LD_PRELOAD", preload.empty() ? library : preload + ":" + library);
  }
  if (setup.files.python_folder) {
    // First, so our sitecustomize is the one Python imports; it then runs
    // the environment's own.
    const auto path = value_of(environment, "PYTHONPATH").value_or("");
    const auto folder = setup.files.python_folder->string();
    set(environment, "PYTHONPATH", path.empty() ? folder : folder + ":" + path);
    if (value_of(environment, "PYTHONFAULTHANDLER").value_or("").empty()) {
      set(environment, "PYTHONFAULTHANDLER", "1");
    } else {
      set(environment, "FTDIAG_USER_FAULTHANDLER", "1");
    }
  }
  return environment;
}

}  // namespace ftdiag::supervise
