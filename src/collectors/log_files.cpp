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

// How far past the first byte a head of NULs is looked through for text.
// logrotate's copytruncate leaves the log's old length as NULs (a hole when
// the filesystem keeps it sparse) before what was written since; holes are
// skipped for free with SEEK_DATA, written NULs are read, up to this.
constexpr std::uint64_t kMaxNulHeadRead = std::uint64_t{16} << 20;

// The first `bytes` after a head of NULs, and the length of that head.
struct Head {
  std::string text;
  std::uint64_t nul_head = 0;
};

Head read_head(int fd, std::size_t bytes) {
  Head head;
  off_t data = ::lseek(fd, 0, SEEK_DATA);
  if (data < 0) data = 0;  // ENXIO: nothing but a hole; EINVAL: no SEEK_DATA here
  std::string chunk(64 * 1024, '\0');
  std::uint64_t at = static_cast<std::uint64_t>(data);
  while (at < static_cast<std::uint64_t>(data) + kMaxNulHeadRead) {
    const ssize_t n = ::pread(fd, chunk.data(), chunk.size(), static_cast<off_t>(at));
    if (n <= 0) break;
    const auto text = std::string_view(chunk.data(), static_cast<std::size_t>(n));
    if (const auto first = text.find_first_not_of('\0'); first != std::string_view::npos) {
      head.nul_head = at + first;
      break;
    }
    at += static_cast<std::uint64_t>(n);
  }
  head.text.resize(bytes);
  const ssize_t n = ::pread(fd, head.text.data(), bytes, static_cast<off_t>(head.nul_head));
  head.text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
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

// A log to read, and the NULs at its start to read past.
struct LogCandidate {
  fs::path file;
  std::uint64_t nul_head = 0;
};

// Whether a file of the tree reads as a log: a text file that is not a
// config, source file or kernel log. Refusals (a link out of the tree, a
// file its owner cannot read) go to `refusals`.
std::optional<LogCandidate> as_log(const TreeReads& tree, const fs::path& file, std::vector<std::string>* refusals) {
  const std::string name = file.filename().string();
  if (name == evidence::kJournalFileName || not_a_log_by_extension(file) || is_kernel_log_name(file)) return std::nullopt;
  auto fd = tree.open_file(file);
  if (!fd) {
    if (refusals && fd.missing().reason == MissingReason::permission_denied) refusals->push_back("refused: " + fd.missing().detail);
    return std::nullopt;
  }
  const Head head = read_head(fd->get(), 4096);
  if (!evidence::looks_like_text(head.text)) return std::nullopt;
  return LogCandidate{file, head.nul_head};
}

std::vector<LogCandidate> logs_under(const TreeReads& tree, const fs::path& path, std::vector<std::string>* problems) {
  auto walk = walk_evidence_files(path);
  if (problems) {
    *problems = std::move(walk.problems);
    if (auto skipped = describe_not_listed(walk, path); !skipped.empty()) problems->push_back(std::move(skipped));
  }
  std::vector<LogCandidate> logs;
  for (auto& file : walk.files) {
    if (auto log = as_log(tree, file, problems)) logs.push_back(std::move(*log));
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
  auto tree = TreeReads::open(path);
  return tree && as_log(tree.value(), path, nullptr).has_value();
}

// A log refused (a link out of the tree, say) is recognised too: the
// refusal is then said in the evidence, not passed over.
bool LogFilesCollector::recognises(const fs::path& path) const {
  auto tree = TreeReads::open(path);
  std::vector<std::string> refusals;
  return tree && (!logs_under(tree.value(), path, &refusals).empty() ||
                  std::any_of(refusals.begin(), refusals.end(), [](const std::string& p) { return p.starts_with("refused: "); }));
}

evidence::CollectorReport LogFilesCollector::collect(const fs::path& path, const CollectContext& context,
                                                     evidence::EvidenceDocument& document) const {
  evidence::CollectorReport report{.name = std::string(name()), .section = std::string(section())};
  std::vector<std::string> problems;
  auto tree = TreeReads::open(path);
  if (!tree) {
    report.outcome = tree.missing();
    return report;
  }
  const auto files = logs_under(tree.value(), path, &problems);
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
      // Opened again beneath the tree: what was judged a log is what is read.
      auto fd = tree->open_file(files[i].file);
      scanned[i] = fd ? scanner.scan_descriptor(fd->get(), files[i].file, "log-files", files[i].nul_head, &progress.bytes_read(), per_file)
                      : Fact<evidence::ScannedLog>(fd.missing());
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
