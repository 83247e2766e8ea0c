#include "evidence/job_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <fstream>

#include <fmt/format.h>

#include "evidence/job_directory.h"
#include "evidence/phase_table.h"
#include "evidence/records_json.h"
#include "evidence/run_builder.h"

namespace ftdiag::evidence {

namespace fs = std::filesystem;

namespace {

// ifstream hides errno; check readability first so the reason is precise.
Fact<bool> check_readable(const fs::path& file) {
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return missing_from_errno(errno, "open " + file.string());
  struct stat st {};
  const bool stat_ok = ::fstat(fd, &st) == 0;
  ::close(fd);
  if (stat_ok && S_ISDIR(st.st_mode)) return Missing{MissingReason::unparseable, file.string() + " is a directory, not a file"};
  if (!stat_ok || !S_ISREG(st.st_mode)) return Missing{MissingReason::unparseable, file.string() + " is not a regular file"};
  return true;
}

void read_journal_into(const fs::path& journal, RunBuilder& builder) {
  std::ifstream in(journal, std::ios::binary);
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) {
      builder.add_problem(fmt::format("{}:{}: not a JSON object (cut short when ftdiag was killed?)",
                                      journal.string(), number));
      continue;
    }
    auto record = record_from_json(j);
    if (!record) {
      builder.add_problem(fmt::format("{}:{}: {}", journal.string(), number, record.missing().detail));
      continue;
    }
    builder.add(record.value());
  }
}

void note_phase(std::vector<PhaseStretch>& stretches, std::string_view phase, const ConsoleLine& line) {
  if (!stretches.empty() && stretches.back().phase == phase) {
    stretches.back().last_time = line.time;
    ++stretches.back().lines;
    return;
  }
  constexpr std::size_t kMaxMarkerText = 500;
  stretches.push_back({std::string(phase), line.time, line.time, 1, line.text.substr(0, kMaxMarkerText)});
  if (stretches.size() > kMaxPhaseStretches) stretches.erase(stretches.begin());
}

ConsoleEvidence read_console(const fs::path& file, const PhaseTable* phases) {
  ConsoleEvidence console;
  if (auto readable = check_readable(file); !readable) {
    console.readable = readable.missing();
    return console;
  }
  std::ifstream in(file, std::ios::binary);
  std::deque<ConsoleLine> tail;
  std::string line;
  while (std::getline(in, line)) {
    ++console.line_count;
    auto parsed = parse_console_line(line);
    if (!parsed) continue;
    if (phases) {
      if (auto phase = phases->classify(parsed->text)) note_phase(console.phases, *phase, parsed.value());
    }
    tail.push_back(std::move(parsed).value());
    if (tail.size() > kConsoleTailLines) tail.pop_front();
  }
  console.tail.assign(tail.begin(), tail.end());
  return console;
}

}  // namespace

Fact<RunEvidence> read_run_directory(const fs::path& run_dir, const PhaseTable* phases) {
  const fs::path journal = run_dir / kJournalFileName;
  if (auto readable = check_readable(journal); !readable) return readable.missing();
  RunBuilder builder;
  read_journal_into(journal, builder);
  if (!builder.has_start()) {
    builder.add_problem(journal.string() + ": no \"run\" record: the journal's first line is missing or damaged");
  }
  RunEvidence run = std::move(builder).finish(run_dir.filename().string());
  run.console = read_console(run_dir / kConsoleFileName, phases);
  return run;
}

bool is_job_directory(const fs::path& path) {
  std::error_code ec;
  if (fs::exists(path / kJournalFileName, ec)) return true;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    if (fs::exists(entry.path() / kJournalFileName, ec)) return true;
  }
  return false;
}

Fact<EvidenceDocument> read_job_directory(const fs::path& path, const PhaseTable* phases) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    if (ec && ec != std::errc::no_such_file_or_directory) return missing_from_errno(ec.value(), "stat " + path.string());
    return Missing{MissingReason::not_present, path.string() + " is not a directory"};
  }
  std::vector<fs::path> run_dirs;
  if (fs::exists(path / kJournalFileName, ec)) {
    run_dirs.push_back(path);
  } else {
    fs::directory_iterator it(path, ec);
    if (ec) return missing_from_errno(ec.value(), "list " + path.string());
    for (const auto& entry : it) {
      if (entry.is_directory(ec) && fs::exists(entry.path() / kJournalFileName, ec)) run_dirs.push_back(entry.path());
    }
    std::sort(run_dirs.begin(), run_dirs.end());
  }
  if (run_dirs.empty()) {
    return Missing{MissingReason::not_present, fmt::format("no {} in {} or its sub-folders: not a job directory written by `ftdiag run`", kJournalFileName, path.string())};
  }
  EvidenceDocument document;
  document.generator = fmt::format("ftdiag {}", FTDIAG_VERSION);
  document.source = path.string();
  for (const auto& dir : run_dirs) {
    auto run = read_run_directory(dir, phases);
    if (!run) {
      RunEvidence unreadable;
      unreadable.directory = dir.filename().string();
      unreadable.journal_problems.push_back(run.missing().detail);
      unreadable.job_status = run.missing();
      document.runs.push_back(std::move(unreadable));
      continue;
    }
    document.runs.push_back(std::move(run).value());
  }
  return document;
}

}  // namespace ftdiag::evidence
