#include "collectors/log_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <atomic>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "collectors/evidence_walk.h"
#include "collectors/kernel_log_collector.h"
#include "collectors/source_host.h"
#include "collectors/read_progress.h"
#include "evidence/job_directory.h"
#include "evidence/log_file_scan.h"

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

std::string read_head(const fs::path& file, std::size_t bytes) {
  std::string head;
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return head;
  head.resize(bytes);
  const ssize_t n = ::read(fd, head.data(), bytes);
  ::close(fd);
  head.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return head;
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

std::vector<fs::path> logs_under(const fs::path& path, std::vector<std::string>* problems) {
  auto walk = walk_evidence_files(path);
  if (problems) {
    *problems = std::move(walk.problems);
    if (walk.files_not_listed > 0) problems->push_back(fmt::format("{} more files under {} not read", walk.files_not_listed, path.string()));
  }
  std::vector<fs::path> logs;
  for (auto& file : walk.files) {
    if (is_plain_log(file)) logs.push_back(std::move(file));
  }
  return logs;
}

std::uint64_t total_size(const std::vector<fs::path>& files) {
  std::uint64_t total = 0;
  for (const auto& file : files) {
    std::error_code ec;
    const auto size = fs::file_size(file, ec);
    if (!ec) total += size;
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
  const std::string name = path.filename().string();
  if (name == evidence::kJournalFileName) return false;
  if (not_a_log_by_extension(path) || is_kernel_log_name(path)) return false;
  return evidence::looks_like_text(read_head(path, 4096));
}

bool LogFilesCollector::recognises(const fs::path& path) const { return !logs_under(path, nullptr).empty(); }

evidence::CollectorReport LogFilesCollector::collect(const fs::path& path, const CollectContext& context,
                                                     evidence::EvidenceDocument& document) const {
  evidence::CollectorReport report{.name = std::string(name()), .section = std::string(section())};
  std::vector<std::string> problems;
  const auto files = logs_under(path, &problems);
  const evidence::LogScanner scanner(context.phases, context.line_events, pattern_cache_directory());
  if (!scanner.fallback_reason().empty()) {
    problems.push_back("patterns read line by line (slower): " + scanner.fallback_reason());
  }
  // Files are read in parallel: a job directory of per-rank logs is read in
  // the time of its largest file when there are cores for it.
  std::vector<Fact<evidence::ScannedLog>> scanned(files.size(), Missing{MissingReason::not_present, "not read"});
  ReadProgress progress(total_size(files));
  std::atomic<std::size_t> next{0};
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads = std::min<std::size_t>(files.size(), cores);
  // The cores the files do not take read parts of each large file at once.
  const std::size_t per_file = std::max<std::size_t>(1, cores / std::max<std::size_t>(1, threads));
  auto work = [&] {
    for (std::size_t i = next++; i < files.size(); i = next++) {
      scanned[i] = scanner.scan_file(files[i], "log-files", &progress.bytes_read(), per_file);
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& thread : pool) thread.join();

  auto& host = host_of_path_sources(document);
  bool denied = false;
  for (std::size_t i = 0; i < files.size(); ++i) {
    report.sources.push_back(files[i].string());
    if (!scanned[i]) {
      problems.push_back(scanned[i].missing().detail);
      denied = denied || scanned[i].missing().reason == MissingReason::permission_denied;
      continue;
    }
    auto& log = scanned[i].value();
    add_kernel_events(host, std::move(log.kernel_events), files[i]);
    host.logs.push_back(std::move(log.log));
  }
  if (!problems.empty()) {
    std::string all;
    for (const auto& p : problems) all += (all.empty() ? "" : "; ") + p;
    report.outcome = Missing{files.empty() ? MissingReason::not_present
                             : denied      ? MissingReason::permission_denied
                                           : MissingReason::failed,
                             all};
  }
  return report;
}

}  // namespace ftdiag::collectors
