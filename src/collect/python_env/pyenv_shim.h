// pyenv's shims (`$PYENV_ROOT/shims/python3`) are bash scripts: each run
// goes through `pyenv exec`, a dozen more scripts and hundreds of PATH
// lookups before the interpreter starts (0.2 to 0.4 s). What the shim would
// run is decided by files, which are read here instead, as pyenv reads them
// (libexec/pyenv-version-name, pyenv-version-file, pyenv-which):
//
//   1. PYENV_VERSION (versions separated by ':'),
//   2. the first `.python-version` from the current directory up to /,
//   3. `$PYENV_ROOT/version`,
//   4. else "system": the command further along PATH, shims left out.
//
// The first version that has the command wins. Anything not understood
// (no such version, a plugin's own hook) gives nullopt: the caller then runs
// the shim itself, which is always right, only slower.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ftdiag::collect {

struct PyenvResolution {
  std::string interpreter;  // the file the shim would exec
  std::string version;      // "3.11.7", "system"
  std::string chosen_by;    // "PYENV_VERSION", "/home/u/proj/.python-version", "/root/.pyenv/version", "the default"
};

// `path`: an interpreter as found (a shim or not); `environment`: the job's
// ("NAME=value"); `directory`: where the job starts.
std::optional<PyenvResolution> resolve_pyenv_shim(const std::string& path, const std::vector<std::string>& environment,
                                                  const std::filesystem::path& directory);

}  // namespace ftdiag::collect
