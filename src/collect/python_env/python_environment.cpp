#include "collect/python_env/python_environment.h"

#include <unistd.h>

#include <filesystem>
#include <string_view>

#include <fmt/format.h>

#include "base/environment_list.h"
#include "collect/python_env/library_path.h"
#include "collect/python_env/native_libraries.h"
#include "collect/python_env/pyenv_shim.h"
#include "collect/python_env/python_interpreter.h"
#include "collect/python_env/python_packages.h"
#include "collect/python_env/python_sys_path.h"
#include "parse/configs/env_command.h"

extern char** environ;  // NOLINT: POSIX declares it nowhere

namespace ftdiag::collect {
namespace {

std::vector<std::string> own_environment() {
  std::vector<std::string> variables;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) variables.emplace_back(*entry);
  return variables;
}


void append(std::vector<std::string>& to, const std::vector<std::string>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

// Packages and their libraries, from the sys.path the interpreter reported.
void read_installation(model::PythonEnvironment& python) {
  auto packages = find_python_packages(python.sys_path);
  python.packages = std::move(packages.packages);
  append(python.problems, packages.problems);
  auto libraries = find_native_libraries(python.packages);
  python.libraries = std::move(libraries.libraries);
  append(python.problems, libraries.problems);
}

}  // namespace

model::PythonEnvironment read_python_environment(const PythonEnvironmentRequest& request) {
  const std::vector<std::string> environment = request.environment.value_or(own_environment());
  model::PythonEnvironment python;
  auto ld_library_path = read_library_path(environment_value(environment, "LD_LIBRARY_PATH").value_or(""));
  python.ld_library_path = std::move(ld_library_path.entries);

  auto resolution = resolve_python_interpreter(InterpreterSearch{
      request.command, request.interpreter,
      environment_value(environment, "PATH").value_or(std::string(parse::kDefaultSearchPath))});
  append(python.problems, resolution.problems);
  if (!resolution.interpreter) {
    python.read = resolution.interpreter.missing();
  } else {
    python.interpreter = resolution.interpreter->path;
    python.found_by = resolution.interpreter->found_by;
    // A pyenv shim is asked through what it would run: the same answer
    // without pyenv's scripts (pyenv_shim.h).
    std::string asked = python.interpreter;
    std::error_code no_directory;
    if (auto shim = resolve_pyenv_shim(python.interpreter, environment, std::filesystem::current_path(no_directory))) {
      asked = shim->interpreter;
      python.found_by += fmt::format("; a pyenv shim: version {} ({}), {}", shim->version, shim->chosen_by,
                                     shim->interpreter);
    }
    auto query = ask_interpreter(asked, environment, request.deadline);
    python.command = std::move(query.command);
    if (query.report) {
      python.read = true;
      python.version = query.report->version;
      python.sys_path = query.report->sys_path;
      read_installation(python);
    } else {
      python.read = query.report.missing();
    }
  }
  append(python.problems, ld_library_path.problems);
  return python;
}

}  // namespace ftdiag::collect
