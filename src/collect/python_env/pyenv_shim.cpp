#include "collect/python_env/pyenv_shim.h"

#include <sys/stat.h>
#include <unistd.h>

#include <sstream>
#include <string_view>

#include "base/environment_list.h"
#include "collect/python_env/python_files.h"
#include "collect/python_env/python_interpreter.h"

namespace ftdiag::collect {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kShimHead = 4096;           // a shim is a few hundred bytes
constexpr std::size_t kVersionFileBytes = 64 * 1024;

bool executable_file_exists(const fs::path& path) {
  return path_is_regular_file(path) && ::access(path.c_str(), X_OK) == 0;
}

// pyenv-version-file-read: the first word of each line, skipping empty
// lines, comments, ".." and words with a "/" (they would make a path).
// Read bounded, never blocking on a FIFO planted under the name.
std::vector<std::string> read_pyenv_version_file(const fs::path& file) {
  std::vector<std::string> versions;
  const auto text = read_regular_file(file, kVersionFileBytes);
  if (!text) return versions;
  std::istringstream lines(*text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string word;
    if (!(words >> word)) continue;
    if (word.front() == '#' || word == ".." || word.find('/') != std::string::npos) continue;
    versions.push_back(word.substr(0, 1024));
  }
  return versions;
}

std::vector<std::string> split_pyenv_versions(std::string_view text) {
  std::vector<std::string> versions;
  while (!text.empty()) {
    const auto colon = text.find(':');
    const auto word = text.substr(0, colon);
    if (!word.empty()) versions.emplace_back(word);
    if (colon == std::string_view::npos) break;
    text.remove_prefix(colon + 1);
  }
  return versions;
}

// PATH without pyenv's shims, as pyenv-which searches it for "system".
std::string path_without_shims(std::string_view search_path, const fs::path& shims) {
  std::string kept;
  while (true) {
    const auto colon = search_path.find(':');
    const auto entry = search_path.substr(0, colon);
    std::error_code error;
    const bool is_shims = !entry.empty() && fs::equivalent(fs::path(entry), shims, error);
    if (!is_shims) {
      if (!kept.empty()) kept += ':';
      kept += entry;
    }
    if (colon == std::string_view::npos) break;
    search_path.remove_prefix(colon + 1);
  }
  return kept;
}

}  // namespace

std::optional<PyenvResolution> resolve_pyenv_shim(const std::string& path, const std::vector<std::string>& environment,
                                                  const fs::path& directory) {
  const fs::path shim(path);
  const fs::path shims = shim.parent_path();
  if (shims.filename() != "shims") return std::nullopt;
  // A pyenv shim runs `pyenv exec`; nothing else is read as one.
  const auto head = read_regular_file(shim, kShimHead);
  if (!head) return std::nullopt;
  const std::string& script = *head;
  if (script.rfind("#!", 0) != 0 || script.find("pyenv") == std::string::npos ||
      script.find(" exec ") == std::string::npos) {
    return std::nullopt;
  }
  fs::path root = shims.parent_path();
  if (const auto at = script.find("export PYENV_ROOT=\""); at != std::string::npos) {
    const auto start = at + std::string_view("export PYENV_ROOT=\"").size();
    const auto end = script.find('"', start);
    if (end != std::string::npos) root = script.substr(start, end - start);
  }
  if (!path_is_directory(root / "versions") && !path_is_directory(root / "libexec")) return std::nullopt;

  // Which versions, and who chose them.
  std::vector<std::string> versions;
  std::string chosen_by;
  if (auto chosen = environment_value(environment, "PYENV_VERSION"); chosen && !chosen->empty()) {
    versions = split_pyenv_versions(*chosen);
    chosen_by = "PYENV_VERSION";
  } else {
    fs::path at = environment_value(environment, "PYENV_DIR").value_or(directory.string());
    for (int depth = 0; depth < 256 && versions.empty(); ++depth) {
      const fs::path file = at / ".python-version";
      if (path_is_regular_file(file)) {
        versions = read_pyenv_version_file(file);
        chosen_by = file.string();
        break;
      }
      if (!at.has_parent_path() || at.parent_path() == at) break;
      at = at.parent_path();
    }
    if (chosen_by.empty()) {
      const fs::path global = root / "version";
      if (path_is_regular_file(global)) {
        versions = read_pyenv_version_file(global);
        chosen_by = global.string();
      }
    }
    if (versions.empty()) {
      versions = {"system"};
      if (chosen_by.empty()) chosen_by = "the default";
    }
  }

  const std::string name = shim.filename().string();
  for (const auto& version : versions) {
    if (version == "system") {
      const auto search = path_without_shims(environment_value(environment, "PATH").value_or(""), shims);
      if (auto found = find_executable(name, search)) return PyenvResolution{*found, version, chosen_by};
      continue;
    }
    // A version that is not installed makes pyenv fail: the shim says why.
    if (!path_is_directory(root / "versions" / version)) return std::nullopt;
    const fs::path candidate = root / "versions" / version / "bin" / name;
    if (executable_file_exists(candidate)) return PyenvResolution{candidate.string(), version, chosen_by};
  }
  return std::nullopt;
}

}  // namespace ftdiag::collect
