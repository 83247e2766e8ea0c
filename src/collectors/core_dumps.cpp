#include "collectors/core_dumps.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "base/tree_reads.h"
#include "collect/host/host_name.h"
#include "collectors/crash_symbols.h"
#include "symbolize/core_stacks.h"

namespace ftdiag::collectors {

namespace fs = std::filesystem;

namespace {

// The kernel's default names ("core", "core.PID" with core_uses_pid) and
// systemd-coredump's exported ones ("core.COMM.UID.BOOT.PID.TIME").
bool named_like_a_core(const std::string& name) { return name == "core" || name.starts_with("core."); }

bool is_elf(const TreeReads& tree, const fs::path& file) {
  auto fd = tree.open_file(file);
  if (!fd) return false;
  char magic[4] = {};
  return ::read(fd->get(), magic, sizeof magic) == 4 && std::memcmp(magic, "\x7f" "ELF", 4) == 0;
}

// The cores in a folder of the tree: listed beneath it, each opened beneath
// it (a core planted as a link out of the tree, or one its owner cannot
// read, is not one).
std::vector<fs::path> cores_in(const TreeReads& tree, const fs::path& folder) {
  std::vector<fs::path> cores;
  auto entries = tree.list(folder);
  if (!entries) return cores;
  for (const auto& entry : *entries) {
    if (cores.size() >= 64) break;
    if (entry.kind != TreeReads::Kind::file || !named_like_a_core(entry.name)) continue;
    if (is_elf(tree, folder / entry.name)) cores.push_back(folder / entry.name);
  }
  std::sort(cores.begin(), cores.end());
  return cores;
}

// Whether the document holds the crash of this core already (from an
// earlier PATH of the same analysis).
bool already_read(const evidence::EvidenceDocument& document, const std::string& core) {
  auto from_core = [&](const std::vector<evidence::CrashEvidence>& crashes) {
    return std::any_of(crashes.begin(), crashes.end(), [&](const evidence::CrashEvidence& c) {
      return c.source == "core" && c.from.file == core;
    });
  };
  for (const auto& host : document.hosts) {
    if (from_core(host.crashes)) return true;
    for (const auto& run : host.runs) {
      if (from_core(run.crashes)) return true;
    }
  }
  return false;
}

bool has_crash_of(const evidence::RunEvidence& run, int pid) {
  return std::any_of(run.crashes.begin(), run.crashes.end(), [&](const evidence::CrashEvidence& c) { return c.pid == pid; });
}

bool is_process_of(const evidence::RunEvidence& run, int pid) {
  return std::any_of(run.processes.begin(), run.processes.end(), [&](const evidence::ProcessEvidence& p) {
    return p.pid == pid || (!p.nspid.empty() && p.nspid.back() == pid);
  });
}

// The journal says where the job ran, and whoever could write the journal
// could write that: its cores are looked for there only when it lies in an
// analyzed folder, or when that folder is root's own. Else the run says why not.
std::vector<fs::path> cores_in_working_directory(const std::vector<TreeReads>& trees, evidence::RunEvidence& run) {
  const fs::path cwd = run.started.cwd;
  for (const auto& tree : trees) {
    if (tree.holds(cwd)) return cores_in(tree, cwd);
  }
  for (const auto& tree : trees) {
    if (!tree.owned_by_root()) continue;
    if (auto own = TreeReads::open(cwd); own && own->is_folder()) return cores_in(own.value(), cwd);
  }
  if (!trees.empty()) {
    run.journal_problems.push_back(fmt::format("cores in the job's working directory {} not looked for: it lies outside the folder "
                                               "analyzed, and the journal that names it belongs to another user than root",
                                               cwd.string()));
  }
  return {};
}

}  // namespace

evidence::CrashEvidence crash_from_core(const fs::path& core, symbolize::ModuleSymbols& symbols) {
  evidence::CrashEvidence crash;
  crash.from = evidence::Provenance{"core-dumps", core.string(), std::nullopt, ""};
  crash.source = "core";
  auto stacks = symbolize::read_core_stacks(core, symbols);
  if (!stacks) {
    crash.problems.push_back(core.string() + ": " + stacks.missing().detail);
    return crash;
  }
  crash.pid = stacks->pid;
  crash.tid = stacks->crashed_tid;
  if (stacks->signal) crash.signal = stacks->signal;
  crash.fault_address = stacks->fault_address;
  crash.maps_recorded = !stacks->maps.empty();
  for (const auto& range : stacks->maps) {
    crash.modules.push_back(evidence::MappedModule{range.path, range.start, range.end, range.file_offset});
    if (crash.fault_address && *crash.fault_address >= range.start && *crash.fault_address < range.end) {
      crash.fault_mapping = range.path;
    }
  }
  if (!stacks->threads.empty()) {
    const auto& crashed = stacks->threads.front();
    crash.frames = evidence_frames(crashed.frames);
    crash.unwind = crashed.unwind_end.empty() ? "complete" : "truncated";
    if (!crashed.unwind_end.empty()) crash.problems.push_back("unwinding stopped: " + crashed.unwind_end);
  }
  crash.symbolized = stacks->truncated ? "the time budget ran out: later frames keep their module and offset"
                                       : "named from the modules on this disk";
  return crash;
}

void add_core_dumps(evidence::EvidenceDocument& document, const std::vector<fs::path>& named, symbolize::ModuleSymbols& symbols,
                    const std::string& this_host, std::vector<std::string>& read) {
  std::set<fs::path> seen;
  auto first_time = [&](const fs::path& core) {
    std::error_code ec;
    const auto canonical = fs::weakly_canonical(core, ec);
    if (!seen.insert(ec ? core : canonical).second || already_read(document, core.string())) return false;
    read.push_back(core.string());
    return true;
  };
  // Into the run that holds the process, unless the crash handler already
  // recorded it there; else into `host`'s crashes (when given).
  auto place = [&](evidence::CrashEvidence crash, evidence::HostEvidence* host) {
    for (auto& h : document.hosts) {
      for (auto& run : h.runs) {
        if (crash.pid && is_process_of(run, *crash.pid)) {
          if (!has_crash_of(run, *crash.pid)) run.crashes.push_back(std::move(crash));
          return;
        }
      }
    }
    if (host) host->crashes.push_back(std::move(crash));
  };
  for (const auto& core : named) {
    if (first_time(core)) place(crash_from_core(core, symbols), &evidence::host_named(document, this_host));
  }
  std::vector<TreeReads> trees;
  for (const auto& source : document.sources) {
    if (auto tree = TreeReads::open(source); tree && tree->is_folder()) trees.push_back(std::move(tree).value());
  }
  for (auto& host : document.hosts) {
    std::vector<fs::path> found;
    for (auto& run : host.runs) {
      // The run folder holds what ftdiag wrote; a core lands in the job's
      // working directory (core_pattern "core"), readable only on its host.
      for (const auto& tree : trees) {
        for (const auto& folder : {tree.root(), tree.root() / run.directory}) {
          for (auto& core : cores_in(tree, folder)) found.push_back(core);
        }
      }
      if (!run.started.cwd.empty() && host.name == this_host) {
        for (auto& core : cores_in_working_directory(trees, run)) found.push_back(core);
      }
    }
    // Found, not named: only the cores of this job's processes count (a
    // working directory may hold cores of anything that ever ran there).
    for (const auto& core : found) {
      if (first_time(core)) place(crash_from_core(core, symbols), nullptr);
    }
  }
}

bool CoreDumpsCollector::recognises(const Inventory& inventory) const {
  if (!inventory.run_folders().empty()) return true;
  return std::any_of(inventory.files().begin(), inventory.files().end(),
                     [](const InventoryFile& file) { return file.depth == 0 && named_like_a_core(file.path.filename().string()); });
}

evidence::CollectorReport CoreDumpsCollector::collect(const Inventory&, const CollectContext& context,
                                                      evidence::EvidenceDocument& document) const {
  evidence::CollectorReport report{.name = std::string(name()), .section = std::string(section())};
  std::optional<symbolize::ModuleSymbols> own_symbols;
  auto& symbols = context.symbols ? *context.symbols : own_symbols.emplace();
  add_core_dumps(document, context.cores, symbols, collect::host_name(), report.sources);
  if (report.sources.empty()) report.outcome = Missing{MissingReason::not_present, "no core file of the job's processes"};
  return report;
}

}  // namespace ftdiag::collectors
