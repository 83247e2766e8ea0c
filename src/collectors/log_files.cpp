#include "collectors/log_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <atomic>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "base/tree_reads.h"
#include "collectors/kernel_log_collector.h"
#include "collectors/log_file_scan.h"
#include "collectors/read_progress.h"
#include "collectors/source_host.h"
#include "journal/job_directory.h"

namespace ftdiag::collectors {

namespace fs = std::filesystem;

namespace {

// Files whose extension says they are not a program's output.
bool not_a_log_by_extension(const fs::path& file) {
  static const std::set<std::string> kExtensions{
      // configs (the config collector's) and data
      ".json", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".csv", ".tsv", ".jsonl", ".parquet", ".arrow",
      // source and notebooks: a script mentions "save_checkpoint" without saving
      ".py", ".pyc", ".pyi", ".ipynb", ".c", ".cc", ".cpp", ".h", ".hpp", ".cu", ".rs", ".go", ".js", ".ts",
      // weights, tensors, archives, images
      ".pt", ".pth", ".bin", ".safetensors", ".ckpt", ".h5", ".npy", ".npz", ".pkl", ".pickle", ".gguf", ".onnx",
      ".gz", ".bz2", ".xz", ".zst", ".zip", ".tar", ".tgz", ".png", ".jpg", ".jpeg", ".gif", ".pdf", ".so", ".o", ".a",
      ".whl", ".model", ".tfevents"};
  std::string extension = file.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(), [](unsigned char c) { return std::tolower(c); });
  if (kExtensions.count(extension)) return true;
  // TensorBoard event files: events.out.tfevents.1700000000.host.123.0
  return file.filename().string().find(".tfevents.") != std::string::npos;
}

// Kernel records found in logs join the host's kernel evidence: they are
// the kernel's word wherever they were pasted. A record already there (the
// same text at the same time) is not counted twice.
void add_kernel_events(evidence::HostEvidence& host, std::vector<evidence::LogEvent> events, const fs::path& file) {
  if (events.empty()) return;
  if (!host.kernel) {
    evidence::KernelLogEvidence kernel;
    kernel.from = evidence::Provenance{.collector = "log-files", .file = file.string()};
    host.kernel = std::move(kernel);
  }
  auto& records = host.kernel.value().records;
  for (auto& event : events) {
    const bool known = std::any_of(records.begin(), records.end(), [&](const evidence::LogEvent& r) {
      return r.kind == event.kind && r.text == event.text && r.time == event.time;
    });
    if (!known) records.push_back(std::move(event));
  }
}

// A log to read, and the NULs at its start to read past.
struct LogCandidate {
  fs::path file;
  std::uint64_t nul_head = 0;
};

// Whether a file of the inventory reads as a log: a text file that is not a
// config or source file (a kernel log is one too). Refusals (a link out of the tree, a
// file its owner cannot read) go to `refusals`.
std::optional<LogCandidate> as_log(const Inventory& inventory, std::size_t index, std::vector<std::string>* refusals) {
  const auto& file = inventory.files()[index];
  if (file.in_checkpoint) return std::nullopt;
  const std::string name = file.path.filename().string();
  // A kernel log is read as a log too: what it holds besides the kernel's messages (systemd's
  // "Failed with result 'oom-kill'" in journalctl's output, a scheduler's lines) is recognised
  // as in any log; its kernel messages join the host's records once (add_kernel_events).
  if (name == evidence::kJournalFileName || not_a_log_by_extension(file.path)) return std::nullopt;
  const auto& head = inventory.head(index);
  if (!head) {
    if (refusals && head.missing().reason == MissingReason::permission_denied) refusals->push_back("refused: " + head.missing().detail);
    return std::nullopt;
  }
  if (!collectors::looks_like_text(head->text)) return std::nullopt;
  return LogCandidate{file.path, head->nul_head};
}

std::vector<LogCandidate> logs_in(const Inventory& inventory, std::vector<std::string>* problems) {
  if (problems) {
    *problems = inventory.problems();
    if (auto skipped = inventory.not_listed(); !skipped.empty()) problems->push_back(std::move(skipped));
  }
  std::vector<LogCandidate> logs;
  for (std::size_t i = 0; i < inventory.files().size(); ++i) {
    if (auto log = as_log(inventory, i, problems)) logs.push_back(std::move(*log));
  }
  return logs;
}

std::uint64_t total_size(const std::vector<LogCandidate>& logs) {
  std::uint64_t total = 0;
  for (const auto& log : logs) {
    std::error_code ec;
    const auto size = fs::file_size(log.file, ec);
    if (!ec && size > log.nul_head) total += size - log.nul_head;
  }
  return total;
}

// $XDG_CACHE_HOME/ftdiag, else ~/.cache/ftdiag; none without a home.
std::optional<fs::path> pattern_cache_directory() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && xdg[0] == '/') return fs::path(xdg) / "ftdiag";
  if (const char* home = std::getenv("HOME"); home && home[0] == '/') return fs::path(home) / ".cache" / "ftdiag";
  return std::nullopt;
}

}  // namespace

bool is_plain_log(const fs::path& path) {
  const auto inventory = Inventory::of(path);
  return inventory.root_is_file() && !inventory.files().empty() && as_log(inventory, 0, nullptr).has_value();
}

// A log refused (a link out of the tree, say) is recognised too: the
// refusal is then said in the evidence, not passed over.
bool LogFilesCollector::recognises(const Inventory& inventory) const {
  std::vector<std::string> refusals;
  return inventory.tree() &&
         (!logs_in(inventory, &refusals).empty() ||
          std::any_of(refusals.begin(), refusals.end(), [](const std::string& p) { return p.starts_with("refused: "); }));
}

evidence::CollectorReport LogFilesCollector::collect(const Inventory& inventory, const CollectContext& context,
                                                     evidence::EvidenceDocument& document) const {
  evidence::CollectorReport report{.name = std::string(name()), .section = std::string(section())};
  std::vector<std::string> problems;
  const auto& tree = inventory.tree();
  if (!tree) {
    report.outcome = tree.missing();
    return report;
  }
  const auto files = logs_in(inventory, &problems);
  const collectors::LogScanner scanner(context.phases, context.line_events, context.failure_words, pattern_cache_directory());
  if (!scanner.fallback_reason().empty()) {
    problems.push_back("patterns read line by line (slower): " + scanner.fallback_reason());
  }
  // Files are read in parallel: a job directory of per-rank logs is read in
  // the time of its largest file when there are cores for it.
  std::vector<Fact<collectors::ScannedLog>> scanned(files.size(), Missing{MissingReason::not_present, "not read"});
  ReadProgress progress(total_size(files));
  std::atomic<std::size_t> next{0};
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads = std::min<std::size_t>(files.size(), cores);
  // The cores the files do not take read parts of each large file at once.
  const std::size_t per_file = std::max<std::size_t>(1, cores / std::max<std::size_t>(1, threads));
  auto work = [&] {
    for (std::size_t i = next++; i < files.size(); i = next++) {
      // Opened again beneath the tree: what was judged a log is what is read.
      auto fd = tree->open_file(files[i].file);
      scanned[i] = fd ? scanner.scan_descriptor(fd->get(), files[i].file, "log-files", files[i].nul_head, &progress.bytes_read(), per_file)
                      : Fact<collectors::ScannedLog>(fd.missing());
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& thread : pool) thread.join();

  auto& host = host_of_path_sources(document);
  bool denied = false;
  std::size_t read = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto& file = files[i].file;
    if (!scanned[i]) {
      problems.push_back(scanned[i].missing().detail);
      denied = denied || scanned[i].missing().reason == MissingReason::permission_denied;
      continue;
    }
    ++read;
    // The head of NULs a copytruncate left is said beside the file's name.
    report.sources.push_back(files[i].nul_head == 0
                                 ? file.string()
                                 : fmt::format("{} ({} NUL bytes at its start skipped)", file.string(), files[i].nul_head));
    auto& log = scanned[i].value();
    log.log.nul_bytes += files[i].nul_head;
    add_kernel_events(host, std::move(log.kernel_events), file);
    host.logs.push_back(std::move(log.log));
  }
  // What was refused or could not be read is in the evidence: beside the
  // files read, or as the outcome when none could be.
  denied = denied || std::any_of(problems.begin(), problems.end(), [](const std::string& p) { return p.starts_with("refused: "); });
  if (read > 0) {
    for (const auto& problem : problems) report.sources.push_back(problem);
  } else if (!problems.empty()) {
    std::string all;
    for (const auto& p : problems) all += (all.empty() ? "" : "; ") + p;
    report.outcome = Missing{denied ? MissingReason::permission_denied : files.empty() ? MissingReason::not_present : MissingReason::failed, all};
  }
  return report;
}

}  // namespace ftdiag::collectors
