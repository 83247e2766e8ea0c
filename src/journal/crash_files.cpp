#include "journal/crash_files.h"

#include <algorithm>
#include <charconv>
#include <map>

#include "base/read_file.h"
#include "parse/logs/faulthandler.h"

namespace ftdiag::journal {

using evidence::CrashEvidence;
using evidence::Provenance;
using evidence::crash_from_record;
using evidence::add_python_dump;

namespace fs = std::filesystem;

namespace {

// Records carry a process's whole memory map: a large job's is a few hundred KiB.
constexpr std::size_t kMaxRecordBytes = 16 << 20;
constexpr std::size_t kMaxDumpBytes = 4 << 20;

// "crash.4242.txt" -> 4242.
std::optional<int> pid_in_name(const std::string& name, std::string_view prefix) {
  if (!name.starts_with(prefix) || !name.ends_with(".txt")) return std::nullopt;
  const std::string_view digits = std::string_view(name).substr(prefix.size(), name.size() - prefix.size() - 4);
  int pid = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
  if (ec != std::errc{} || ptr != digits.data() + digits.size() || pid <= 0) return std::nullopt;
  return pid;
}

void read_python_faults(const fs::path& file, int pid, CrashEvidence& crash) {
  auto text = read_small_file(file, kMaxDumpBytes);
  if (!text) {
    crash.problems.push_back(text.missing().detail);
    return;
  }
  // A process writes one fatal dump; a second one (a fault while dumping)
  // adds nothing the first lacks.
  const auto dumps = parse::read_faulthandler_dumps(text.value());
  if (dumps.empty()) return;  // enabled, never fired: the process did not crash
  if (crash.source.empty()) {
    crash.source = "faulthandler";
    crash.from = Provenance{"crash-files", file.string(), std::nullopt, ""};
    crash.pid = pid;
  }
  add_python_dump(crash, dumps.front());
}

}  // namespace

std::vector<CrashEvidence> read_crash_files(const fs::path& run_dir) {
  std::map<int, CrashEvidence> by_pid;
  std::map<int, fs::path> python_faults;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(run_dir, ec)) {
    const auto name = entry.path().filename().string();
    if (auto pid = pid_in_name(name, kCrashRecordPrefix)) {
      if (by_pid.size() >= kMaxCrashesPerRun && !by_pid.contains(*pid)) continue;
      const Provenance from{"crash-files", entry.path().string(), std::nullopt, ""};
      auto text = read_small_file(entry.path(), kMaxRecordBytes);
      if (!text) {
        CrashEvidence unreadable;
        unreadable.from = from;
        unreadable.source = "crash-probe";
        unreadable.pid = *pid;
        unreadable.problems.push_back(text.missing().detail);
        by_pid[*pid] = std::move(unreadable);
        continue;
      }
      by_pid[*pid] = crash_from_record(text.value(), from);
      if (!by_pid[*pid].pid) by_pid[*pid].pid = *pid;
    } else if (auto faults_pid = pid_in_name(name, kPythonFaultsPrefix)) {
      python_faults[*faults_pid] = entry.path();
    }
  }
  for (const auto& [pid, file] : python_faults) {
    if (by_pid.size() >= kMaxCrashesPerRun && !by_pid.contains(pid)) continue;
    CrashEvidence crash;
    if (auto it = by_pid.find(pid); it != by_pid.end()) crash = std::move(it->second);
    read_python_faults(file, pid, crash);
    if (!crash.source.empty()) by_pid[pid] = std::move(crash);
  }
  std::vector<CrashEvidence> crashes;
  for (auto& [pid, crash] : by_pid) crashes.push_back(std::move(crash));
  // The first crash first: the one that started it.
  std::stable_sort(crashes.begin(), crashes.end(), [](const CrashEvidence& a, const CrashEvidence& b) {
    return a.time.value_or(1e300) < b.time.value_or(1e300);
  });
  return crashes;
}

}  // namespace ftdiag::journal
