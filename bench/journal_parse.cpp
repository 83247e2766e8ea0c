// Reading a journal back: simdjson (journal::read_journal) against the
// nlohmann path it replaces (std::getline + nlohmann::json::parse +
// record_from_json) and against `wc -l`, on the same file in the same run,
// interleaved rep by rep, so that a noisy machine slows all alike.
//
// Without --file it writes a journal like a long `ftdiag run` of a busy job:
// mostly "sample" records listing 10 to 100 processes each (the shapes of
// fuzz/corpus/journal/line-ac: cgroup v1 with a missing counter, /dev/shm,
// node), with "process" and "death" records as processes come and go and an
// occasional "note"; then deletes it unless --keep.
//
//   wc-l        `wc -l FILE`, a child process (the baseline the figures are
//               quoted against)
//   read        read(2) in 1 MiB blocks + memchr for "\n", in process: the
//               floor for any reader of this file
//   nlohmann    getline + json::parse + record_from_json, each record counted
//   simdjson    read_journal with a sink that counts records, its lines
//               parsed on --threads threads (0, the default: one per CPU, as
//               `ftdiag analyze` does)
//   +builder    read_journal feeding a RunBuilder, then finish(): what
//               `ftdiag analyze` does with a journal (without the console log)
//   simdjson-1t, +builder-1t   the same parsing on the calling thread only
//               (shown unless --threads 1)
//
// Most lines never reach simdjson (journal_canonical.h reads the lines
// `ftdiag run` writes); the names stay those of the readers compared.
// The file is read from the page cache in every case (it was just written or
// read); MB are 10^6 bytes.
//
// usage: journal_parse [--size-mb N] [--file PATH] [--reps R] [--dir DIR] [--keep] [--skip-nlohmann]
//                      [--threads N]
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evidence/journal_parse.h"
#include "evidence/records_json.h"
#include "evidence/run_builder.h"
#include "journal/journal_reader.h"

namespace {

using namespace ftdiag;
using namespace ftdiag::evidence;
using namespace ftdiag::journal;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// CPU seconds (user + system) of this process and of its waited-for children.
double cpu_seconds() {
  double total = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage usage{};
    ::getrusage(who, &usage);
    total += static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
             static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  }
  return total;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// ---- the journal ----

struct Process {
  int pid;
  Bytes rss;
};

ProcessMemory reading(const Process& p, std::mt19937_64& rng) {
  const Bytes rss = p.rss + rng() % (64u << 20);
  const Bytes anon = rss / 8 * 7;
  return ProcessMemory{p.pid, rss, anon, rss - anon, 0u, rss + (rng() % (1u << 20)), 0u};
}

MemorySample sample_of(double time, const std::vector<Process>& tree, std::mt19937_64& rng) {
  MemorySample s;
  s.time = time;
  s.node.mem_total = Bytes{25276063744};
  s.node.mem_available = Bytes{23310483456} - rng() % (1u << 30);
  s.node.swap_total = Bytes{0};
  s.node.swap_free = Bytes{0};
  s.node.shmem = Bytes{9138176} + rng() % 4096 * 4096;
  CgroupMemory cg;
  cg.version = 1;
  cg.path = "/process_api/e219be324f0645a4844e14b62a72354e";
  cg.usage = Bytes{8462336} + rng() % (1u << 30);
  cg.limit = std::optional<Bytes>();
  cg.peak = Bytes{321118208};
  cg.oom_events = Missing{MissingReason::unsupported, "cgroup v1 has no OOM event counter (under_oom is a state)"};
  cg.oom_kill = std::uint64_t{0};
  cg.max_events = std::uint64_t{0};
  cg.swap = Bytes{0};
  cg.anon = Bytes{2011136} + rng() % (1u << 30);
  cg.file = Bytes{4915200};
  cg.shmem = Bytes{0};
  cg.under_oom = false;
  s.cgroup = cg;
  s.dev_shm = FilesystemUsage{25276063744u, 0u, 25276063744u};
  // A busy job lists between 10 and 100 of its processes per sample.
  const std::size_t listed = std::min<std::size_t>(tree.size(), 10 + rng() % 91);
  const std::size_t first = rng() % (tree.size() - listed + 1);
  for (std::size_t i = first; i < first + listed; ++i) s.processes.push_back(reading(tree[i], rng));
  return s;
}

ProcessSeen seen_of(double time, int pid, int ppid) {
  std::vector<std::string> argv = {"python", "-m", "torch.distributed.run", "--nproc-per-node", "8", "train.py"};
  return ProcessSeen{time, pid, ppid, {pid}, std::move(argv), "python", 72446u + static_cast<std::uint64_t>(pid),
                     "netlink-fork"};
}

// Writes about `bytes` bytes of journal; returns the number of records.
std::uint64_t write_journal(const fs::path& file, std::uint64_t bytes) {
  std::mt19937_64 rng(20261129);
  std::FILE* out = std::fopen(file.c_str(), "wb");
  if (!out) {
    std::perror(file.c_str());
    std::exit(1);
  }
  std::vector<char> buffer(4u << 20);
  std::setvbuf(out, buffer.data(), _IOFBF, buffer.size());
  std::uint64_t written = 0;
  std::uint64_t records = 0;
  auto put = [&](const JournalRecord& r) {
    std::string line = record_to_json(r).dump();
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), out);
    written += line.size();
    ++records;
  };
  double time = 1795941954.9732409;
  RunStarted run;
  run.time = time;
  run.journal_format = kJournalFormat;
  run.ftdiag_version = "0.1.0";
  run.host = "node01";
  run.rank = 0;
  run.argv = {"torchrun", "--nproc-per-node", "8", "train.py"};
  run.cwd = "/home/user/train";
  run.supervisor_pid = 4121;
  run.job_pid = 4122;
  run.mechanisms = {{"netlink", true}, {"subreaper", true}, {"proc-scan", true},
                    {"oom-protection", Missing{MissingReason::permission_denied, "needs CAP_SYS_RESOURCE"}}};
  put(run);
  std::vector<Process> tree;
  int next_pid = 4122;
  for (int i = 0; i < 100; ++i) {
    tree.push_back(Process{next_pid, Bytes{1675264} + rng() % (Bytes{4} << 30)});
    put(seen_of(time, next_pid, i == 0 ? 4121 : 4122));
    ++next_pid;
  }
  std::uint64_t tick = 0;
  while (written < bytes) {
    time += 0.5;
    ++tick;
    put(sample_of(time, tree, rng));
    if (tick % 40 == 0) {  // a dataloader worker ends and another starts
      const std::size_t victim = 1 + rng() % (tree.size() - 1);
      put(ProcessDied{time + 0.01, tree[victim].pid, ExitStatus::exited(0), {"netlink"}});
      tree[victim] = Process{next_pid, Bytes{1675264} + rng() % (Bytes{1} << 30)};
      put(seen_of(time + 0.02, next_pid, 4122));
      ++next_pid;
    }
    if (tick % 500 == 0) put(SupervisorNote{time, "netlink lost events; scanning /proc"});
  }
  put(ProcessDied{time + 0.3, tree[1].pid, ExitStatus::killed(9), {"netlink", "subreaper"}});
  put(RunEnded{time + 0.5, ExitStatus::killed(9)});
  std::fclose(out);
  return records;
}

// ---- the readers ----

std::uint64_t wc_l(const fs::path& file) {
  const std::string command = "wc -l < '" + file.string() + "'";
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return 0;
  unsigned long long lines = 0;
  if (std::fscanf(pipe, "%llu", &lines) != 1) lines = 0;
  ::pclose(pipe);
  return lines;
}

std::uint64_t read_count(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  std::vector<char> buffer(1u << 20);
  std::uint64_t lines = 0;
  ssize_t n;
  while ((n = ::read(fd, buffer.data(), buffer.size())) > 0) {
    const char* p = buffer.data();
    const char* end = p + n;
    while ((p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p))))) {
      ++lines;
      ++p;
    }
  }
  ::close(fd);
  return lines;
}

std::uint64_t nlohmann_count(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string line;
  std::uint64_t records = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) continue;
    if (record_from_json(j)) ++records;
  }
  return records;
}

struct CountingSink : JournalSink {
  std::uint64_t records = 0;
  std::uint64_t problems = 0;
  void on_record(JournalRecord&&) override { ++records; }
  void on_problem(std::uint64_t, std::string) override { ++problems; }
};

JournalReadOptions read_options;  // --threads

std::uint64_t simdjson_count_with(const fs::path& file, const JournalReadOptions& options) {
  CountingSink sink;
  auto stats = read_journal(file, sink, options);
  if (!stats) {
    std::fprintf(stderr, "read_journal: %s\n", stats.missing().detail.c_str());
    std::exit(1);
  }
  return sink.records;
}
std::uint64_t simdjson_count(const fs::path& file) { return simdjson_count_with(file, read_options); }
std::uint64_t simdjson_count_1t(const fs::path& file) { return simdjson_count_with(file, JournalReadOptions{1}); }

struct BuilderSink : JournalSink {
  RunBuilder builder;
  std::uint64_t records = 0;
  void on_record(JournalRecord&& r) override {
    builder.add(r);
    ++records;
  }
  void on_problem(std::uint64_t line, std::string reason) override {
    builder.add_problem(std::to_string(line) + ": " + reason);
  }
};

std::uint64_t builder_count_with(const fs::path& file, const JournalReadOptions& options) {
  BuilderSink sink;
  if (!read_journal(file, sink, options)) std::exit(1);
  RunEvidence run = std::move(sink.builder).finish("bench");
  return run.processes.empty() ? 0 : sink.records;
}
std::uint64_t builder_count(const fs::path& file) { return builder_count_with(file, read_options); }
std::uint64_t builder_count_1t(const fs::path& file) { return builder_count_with(file, JournalReadOptions{1}); }

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t size_mb = 200;
  int reps = 3;
  std::optional<fs::path> given;
  fs::path scratch_root = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
  bool keep = false;
  bool skip_nlohmann = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--size-mb" && i + 1 < argc) {
      size_mb = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--reps" && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--file" && i + 1 < argc) {
      given = argv[++i];
    } else if (arg == "--dir" && i + 1 < argc) {
      scratch_root = argv[++i];
    } else if (arg == "--keep") {
      keep = true;
    } else if (arg == "--skip-nlohmann") {
      skip_nlohmann = true;
    } else if (arg == "--threads" && i + 1 < argc) {
      read_options.threads = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    } else {
      std::fprintf(stderr,
                   "usage: journal_parse [--size-mb N] [--file PATH] [--reps R] [--dir DIR] [--keep] "
                   "[--skip-nlohmann] [--threads N]\n");
      return 2;
    }
  }

  fs::path file;
  fs::path scratch;
  std::uint64_t expected_records = 0;
  if (given) {
    file = *given;
  } else {
    std::string pattern = (scratch_root / "ftdiag-bench-journal-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) {
      std::perror("mkdtemp");
      return 1;
    }
    scratch = pattern;
    file = scratch / "journal.jsonl";
    const auto start = Clock::now();
    expected_records = write_journal(file, size_mb * 1000000);
    std::printf("wrote %s: %.1f MB, %llu records, in %.1f s\n", file.c_str(), fs::file_size(file) / 1e6,
                static_cast<unsigned long long>(expected_records), seconds_since(start));
  }
  const double mb = static_cast<double>(fs::file_size(file)) / 1e6;
  const std::uint64_t lines = read_count(file);  // also brings the file into the page cache
  std::printf("file: %s, %.1f MB, %llu lines, %.0f bytes per line; %d reps, interleaved\n", file.c_str(), mb,
              static_cast<unsigned long long>(lines), mb * 1e6 / std::max<std::uint64_t>(lines, 1), reps);

  struct Reader {
    const char* name;
    std::uint64_t (*run)(const fs::path&);
    std::vector<double> seconds;
    std::vector<double> cpu;
    std::uint64_t count = 0;
  };
  std::vector<Reader> readers = {{"wc-l", wc_l, {}, {}}, {"read", read_count, {}, {}}};
  if (!skip_nlohmann) readers.push_back({"nlohmann", nlohmann_count, {}, {}});
  if (read_options.threads != 1) readers.push_back({"simdjson-1t", simdjson_count_1t, {}, {}});
  readers.push_back({"simdjson", simdjson_count, {}, {}});
  if (read_options.threads != 1) readers.push_back({"+builder-1t", builder_count_1t, {}, {}});
  readers.push_back({"+builder", builder_count, {}, {}});
  for (int rep = 0; rep < reps; ++rep) {
    for (auto& r : readers) {
      const double cpu_start = cpu_seconds();
      const auto start = Clock::now();
      r.count = r.run(file);
      r.seconds.push_back(seconds_since(start));
      r.cpu.push_back(cpu_seconds() - cpu_start);
    }
  }

  const double wc = median(readers[0].seconds);
  double nlohmann_s = 0;
  double simd_s = 0;
  double builder_s = 0;
  double simd_1t_s = 0;
  double builder_1t_s = 0;
  double load[3] = {0, 0, 0};
  if (::getloadavg(load, 3) < 0) load[0] = -1;
  std::printf("\n%-12s %10s %10s %10s %10s %10s %14s\n", "reader", "median s", "MB/s", "x wc -l", "cpu s", "MB/cpu-s",
              "lines/records");
  for (const auto& r : readers) {
    const double s = median(r.seconds);
    const double c = median(r.cpu);
    std::printf("%-12s %10.3f %10.0f %10.2f %10.3f %10.0f %14llu\n", r.name, s, mb / s, s / wc, c, mb / c,
                static_cast<unsigned long long>(r.count));
    if (std::string(r.name) == "nlohmann") nlohmann_s = s;
    if (std::string(r.name) == "simdjson") simd_s = s;
    if (std::string(r.name) == "+builder") builder_s = s;
    if (std::string(r.name) == "simdjson-1t") simd_1t_s = s;
    if (std::string(r.name) == "+builder-1t") builder_1t_s = s;
  }
  std::printf(
      "\nx wc -l: time / the time of `wc -l` on the same file; cpu s: CPU time (user + system, wc's own for\n"
      "wc-l), less sensitive than the wall time to other load on the machine; lines/records: lines for\n"
      "wc-l and read, records read for the others (they must agree with each other). Load average at the\n"
      "end: %.2f\n",
      load[0]);
  bool consistent = true;
  for (const auto& r : readers) {
    if (std::string(r.name) == "wc-l" || std::string(r.name) == "read") {
      consistent = consistent && r.count == lines;
    } else {
      consistent = consistent && r.count == readers.back().count && (!expected_records || r.count == expected_records);
    }
  }
  if (!consistent) std::printf("WARNING: the readers disagree on the counts above\n");
  auto mbps = [&](double s) { return s > 0 ? mb / s : 0.0; };
  std::printf(
      "RESULT journal_parse mb=%.0f threads=%u wc_mbps=%.0f read_mbps=%.0f nlohmann_mbps=%.0f simdjson_mbps=%.0f "
      "builder_mbps=%.0f simdjson_1t_mbps=%.0f builder_1t_mbps=%.0f simdjson_vs_nlohmann=%.1f simdjson_vs_wc=%.2f "
      "builder_vs_wc=%.2f load=%.2f\n",
      mb, read_options.threads, mbps(wc), mbps(median(readers[1].seconds)), mbps(nlohmann_s), mbps(simd_s),
      mbps(builder_s), mbps(simd_1t_s), mbps(builder_1t_s), nlohmann_s > 0 ? nlohmann_s / simd_s : 0.0, simd_s / wc,
      builder_s / wc, load[0]);

  if (!scratch.empty() && !keep) {
    std::error_code ec;
    fs::remove_all(scratch, ec);
  } else if (!scratch.empty()) {
    std::printf("kept %s\n", file.c_str());
  }
  return consistent ? 0 : 1;
}
