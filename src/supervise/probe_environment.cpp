#include "supervise/probe_environment.h"

#include "base/environment_list.h"
#include "collect/helpers/probe_location.h"

namespace ftdiag::supervise {

namespace fs = std::filesystem;

namespace {

constexpr const char* kCrashLibrary = "libftdiag_crash.so";

void set(std::vector<std::string>& environment, std::string_view name, const std::string& value) {
  for (auto& entry : environment) {
    if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 && entry[name.size()] == '=') {
      entry = std::string(name) + "=" + value;
      return;
    }
  }
  environment.push_back(std::string(name) + "=" + value);
}

}  // namespace

ProbeFiles find_probe_files() {
  ProbeFiles files;
  files.crash_library = collect::find_probe_file(kCrashLibrary);
  auto sitecustomize = collect::find_probe_file(fs::path("python") / "sitecustomize.py");
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
    const auto preload = environment_value(environment, "LD_PRELOAD").value_or("");
    const auto library = setup.files.crash_library->string();
    set(environment, "LD_PRELOAD", preload.empty() ? library : preload + ":" + library);
  }
  if (setup.files.python_folder) {
    // First, so our sitecustomize is the one Python imports; it then runs
    // the environment's own.
    const auto path = environment_value(environment, "PYTHONPATH").value_or("");
    const auto folder = setup.files.python_folder->string();
    set(environment, "PYTHONPATH", path.empty() ? folder : folder + ":" + path);
    if (environment_value(environment, "PYTHONFAULTHANDLER").value_or("").empty()) {
      set(environment, "PYTHONFAULTHANDLER", "1");
    } else {
      set(environment, "FTDIAG_USER_FAULTHANDLER", "1");
    }
  }
  return environment;
}

}  // namespace ftdiag::supervise
