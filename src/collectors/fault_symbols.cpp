#include "collectors/fault_symbols.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <system_error>

#include <fmt/format.h>

namespace ftdiag::collectors {

namespace fs = std::filesystem;
using evidence::LogEvent;

namespace {

// Where shared libraries live on Debian, Ubuntu and Red Hat-like systems.
constexpr const char* kLibraryFolders[] = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
                                           "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib",
                                           "/usr/local/lib"};

bool is_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

// argv[0] as the process ran it: absolute, relative to the run's directory,
// or found on PATH.
std::optional<fs::path> program_path(const std::string& argv0, const std::string& cwd) {
  if (argv0.empty()) return std::nullopt;
  if (argv0.find('/') != std::string::npos) {
    fs::path path = fs::path(argv0).is_absolute() || cwd.empty() ? fs::path(argv0) : fs::path(cwd) / argv0;
    return is_file(path) ? std::optional(path) : std::nullopt;
  }
  const char* search = std::getenv("PATH");
  std::string_view folders = search ? search : "/usr/local/bin:/usr/bin:/bin";
  while (!folders.empty()) {
    const auto colon = folders.find(':');
    const auto folder = folders.substr(0, colon);
    folders = colon == std::string_view::npos ? std::string_view() : folders.substr(colon + 1);
    if (folder.empty()) continue;
    if (fs::path candidate = fs::path(folder) / argv0; is_file(candidate)) return candidate;
  }
  return std::nullopt;
}


// The module file the kernel named by its base name.
std::optional<fs::path> find_module(const std::string& object, const evidence::HostEvidence& host, const LogEvent& event) {
  if (object.empty() || object.find('/') != std::string::npos || object.ends_with("(deleted)")) return std::nullopt;
  for (const auto& run : host.runs) {
    for (const auto& p : run.processes) {
      const bool same = event.pid && (p.pid == *event.pid ||
                                      std::find(p.nspid.begin(), p.nspid.end(), *event.pid) != p.nspid.end());
      if (!same || p.argv.empty()) continue;
      if (auto path = program_path(p.argv[0], run.started.cwd); path && path->filename() == object) return path;
    }
  }
  for (const char* folder : kLibraryFolders) {
    if (fs::path candidate = fs::path(folder) / object; is_file(candidate)) return candidate;
  }
  return std::nullopt;
}

void symbolize_event(LogEvent& event, const evidence::HostEvidence& host, symbolize::ModuleSymbols& symbols) {
  if (event.kind != "fault" || event.details.count("function")) return;
  const auto offset_text = event.detail("object_offset");
  if (offset_text.empty()) return;  // kernels before ~6.x print no file offset
  const auto module = find_module(event.detail("object"), host, event);
  if (!module) return;
  const std::uint64_t offset = std::strtoull(offset_text.c_str(), nullptr, 16);
  auto place = symbols.at_file_offset(*module, offset);
  if (!place) return;
  event.details["module_path"] = module->string();
  if (!place->function.empty()) event.details["function"] = place->function;
  if (!place->file.empty()) {
    event.details["source"] = place->line ? fmt::format("{}:{}", place->file, *place->line) : place->file;
  }
}

}  // namespace

void symbolize_kernel_faults(evidence::EvidenceDocument& document, symbolize::ModuleSymbols& symbols) {
  for (auto& host : document.hosts) {
    for (auto& run : host.runs) {
      if (!run.kernel) continue;
      for (auto& event : run.kernel->records) symbolize_event(event, host, symbols);
    }
    if (host.kernel) {
      for (auto& event : host.kernel->records) symbolize_event(event, host, symbols);
    }
  }
}

}  // namespace ftdiag::collectors
