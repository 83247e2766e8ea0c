#include "collect/python_env/pyenv_shim.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string_view>

#include "collect/python_env/python_interpreter.h"

namespace ftdiag::collect {

namespace fs = std::filesystem;

namespace {

std::optional<std::string> pyenv_variable(const std::vector<std::string>& environment, std::string_view name) {
  for (const auto& entry : environment) {
    if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 && entry[name.size()] == '=') {
      return entry.substr(name.size() + 1);
    }
  }
  return std::nullopt;
}

// The first bytes of a file (a shim is a few hundred bytes).
std::string shim_head(const fs::path& file, std::size_t bytes) {
  std::ifstream in(file, std::ios::binary);
  std::string text(bytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(bytes));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

bool directory_exists(const fs::path& path) {
  std::error_code error;
  return fs::is_directory(path, error);
}

bool executable_file_exists(const fs::path& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// pyenv-version-file-read: the first word of each line, skipping empty
// lines, comments, ".." and words with a "/" (they would make a path).
std::vector<std::string> read_pyenv_version_file(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> versions;
  std::string line;
  for (int lines = 0; lines < 64 && std::getline(in, line); ++lines) {
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
  const std::string script = shim_head(shim, 4096);
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
  if (!directory_exists(root / "versions") && !directory_exists(root / "libexec")) return std::nullopt;

  // Which versions, and who chose them.
  std::vector<std::string> versions;
  std::string chosen_by;
  if (auto chosen = pyenv_variable(environment, "PYENV_VERSION"); chosen && !chosen->empty()) {
    versions = split_pyenv_versions(*chosen);
    chosen_by = "PYENV_VERSION";
  } else {
    fs::path at = pyenv_variable(environment, "PYENV_DIR").value_or(directory.string());
    for (int depth = 0; depth < 256 && versions.empty(); ++depth) {
      const fs::path file = at / ".python-version";
      std::error_code error;
      if (fs::is_regular_file(file, error)) {
        versions = read_pyenv_version_file(file);
        chosen_by = file.string();
        break;
      }
      if (!at.has_parent_path() || at.parent_path() == at) break;
      at = at.parent_path();
    }
    if (chosen_by.empty()) {
      const fs::path global = root / "version";
      std::error_code error;
      if (fs::is_regular_file(global, error)) {
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
      const auto search = path_without_shims(pyenv_variable(environment, "PATH").value_or(""), shims);
      if (auto found = find_executable(name, search)) return PyenvResolution{*found, version, chosen_by};
      continue;
    }
    // A version that is not installed makes pyenv fail: the shim says why.
    if (!directory_exists(root / "versions" / version)) return std::nullopt;
    const fs::path candidate = root / "versions" / version / "bin" / name;
    if (executable_file_exists(candidate)) return PyenvResolution{candidate.string(), version, chosen_by};
  }
  return std::nullopt;
}

}  // namespace ftdiag::collect
