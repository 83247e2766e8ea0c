// Cost of LineEventTable::match() per console line, against a plain memchr
// over the same bytes, measured in the same process and interleaved so that a
// noisy machine slows both alike.
//
//   memchr        memchr for a byte no line holds: the bare cost of looking
//                 at every byte of the line once (the baseline)
//   match-miss    match() on ordinary ~100-byte training lines (progress bars,
//                 loss dicts, tracebacks, logger lines): none reports a death,
//                 the case of almost every line of a job
//   match-hit     match() on lines that do report one (from every source)
//   find-each     the same ordinary lines searched for each distinct literal in
//                 turn with string_view::find: the simplest prefilter, for scale
//   re2-set       the same lines through one RE2::Set of the quoted literals:
//                 the other prefilter considered
//
// usage: line_events [--rounds R] [--lines N] [TABLE]   (TABLE: rules/log-events.json)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <re2/re2.h>
#include <re2/set.h>

#include "parse/logs/line_events.h"

namespace {

using Clock = std::chrono::steady_clock;
using ftdiag::parse::LineEventTable;

// Ordinary lines of a training job, with numbers varied so that no two lines
// repeat; each about 100 bytes.
std::vector<std::string> ordinary_lines(std::size_t count) {
  static const char* const kTemplates[] = {
      " %2d%%|█████████▊| %d/1000 [33:02<00:28, 28.03s/it, loss=0.%04d, lr=1.8e-05, grad_norm=0.812]",
      "{'loss': 0.%04d, 'learning_rate': 0.000181056268143%d, 'epoch': 0.%d, 'throughput': 1828.21}",
      "[INFO|2025-04-30 22:55:%02d] llamafactory.train.callbacks:143 >> {'loss': 1.%04d, 'epoch': 0.%d}",
      "  File \"/usr/lib/python3/dist-packages/torch/nn/modules/module.py\", line %d, in _call_impl %d%d",
      "[2023-07-24 13:21:%02d,261] [INFO] [logging.py:96:log_dist] [Rank 0] step=%d, skipped=0, lr=[%d]",
      "[rank%d]:[W ProcessGroupNCCL.cpp:%d] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS=1 has no effect %d",
      "Epoch %d: 100%%|██████████| 500/500 [02:11<00:00,  3.80it/s, loss=0.%d, v_num=%d, val_acc=0.91]",
  };
  std::mt19937 random(42);
  std::vector<std::string> lines;
  char buffer[512];
  for (std::size_t i = 0; i < count; ++i) {
    const char* format = kTemplates[i % std::size(kTemplates)];
    std::snprintf(buffer, sizeof buffer, format, static_cast<int>(random() % 100), static_cast<int>(random() % 10000),
                  static_cast<int>(random() % 10000));
    lines.emplace_back(buffer);
  }
  return lines;
}

std::vector<std::string> reporting_lines() {
  return {
      "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 21119 closing signal SIGTERM",
      "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 1 (pid: 21120) of binary: /usr/bin/python3.11",
      "  exitcode  : -9 (pid: 21120)",
      "[2023-04-14 13:11:27,879] [INFO] [launch.py:428:sigkill_handler] Killing subprocess 13266",
      "RuntimeError: DataLoader worker (pid 21406) is killed by signal: Killed. ",
      "slurmstepd: error: Detected 1 oom_kill event in StepId=18835145.batch. Some of the step tasks have been OOM Killed.",
      "slurmstepd: error: *** JOB 7 ON node1 CANCELLED AT 2026-09-21T10:00:00 DUE TO TIME LIMIT ***",
      "srun: error: nid001: tasks 0-7: Killed",
      "      Reason:       OOMKilled",
      "systemd[2765]: run-u820.service: Failed with result 'oom-kill'.",
      "earlyoom[812]: sending SIGTERM to process 4242 uid 1000 \"python3\": oom_score 812, oom_score_adj 0, VmRSS 28113 MiB, cmdline \"python3\"",
      "/var/spool/slurmd/job18835145/slurm_script: line 46: 2113061 Killed                  python3 Experiments.py",
  };
}

template <class PerLine>
double ns_per_line(const std::vector<std::string>& lines, PerLine&& per_line) {
  std::size_t sink = 0;
  const auto start = Clock::now();
  for (const auto& line : lines) sink += per_line(std::string_view(line));
  const auto elapsed = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
  if (sink == 0xFFFFFFFF) std::puts("");  // keeps the work observable
  return elapsed / static_cast<double>(lines.size());
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 21;
  std::size_t line_count = 200000;
  std::string table_path = FTDIAG_SOURCE_DIR "/rules/log-events.json";
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--rounds" && i + 1 < argc) rounds = std::atoi(argv[++i]);
    else if (arg == "--lines" && i + 1 < argc) line_count = static_cast<std::size_t>(std::atol(argv[++i]));
    else table_path = argv[i];
  }
  auto loaded = LineEventTable::load(table_path);
  if (const auto* error = std::get_if<std::string>(&loaded)) {
    std::fprintf(stderr, "%s\n", error->c_str());
    return 1;
  }
  const auto& table = std::get<LineEventTable>(loaded);

  std::vector<std::string> literals;
  for (const auto& pattern : table.patterns()) {
    if (std::find(literals.begin(), literals.end(), pattern.literal) == literals.end()) literals.push_back(pattern.literal);
  }
  RE2::Options options;
  options.set_log_errors(false);
  RE2::Set literal_set(options, RE2::UNANCHORED);
  for (const auto& literal : literals) literal_set.Add(RE2::QuoteMeta(literal), nullptr);
  literal_set.Compile();

  const auto misses = ordinary_lines(line_count);
  auto hits = reporting_lines();
  for (const auto& line : misses) {
    if (table.match(line)) {
      std::fprintf(stderr, "an ordinary line matched: %s\n", line.c_str());
      return 1;
    }
  }
  for (const auto& line : hits) {
    if (!table.match(line)) {
      std::fprintf(stderr, "a reporting line did not match: %s\n", line.c_str());
      return 1;
    }
  }
  std::vector<std::string> hit_lines;
  while (hit_lines.size() < line_count / 10) hit_lines.insert(hit_lines.end(), hits.begin(), hits.end());
  std::size_t bytes = 0;
  for (const auto& line : misses) bytes += line.size();

  std::vector<double> memchr_ns, miss_ns, hit_ns, find_ns, set_ns;
  for (int round = 0; round < rounds; ++round) {
    memchr_ns.push_back(ns_per_line(misses, [](std::string_view l) { return std::memchr(l.data(), '\x01', l.size()) != nullptr; }));
    miss_ns.push_back(ns_per_line(misses, [&](std::string_view l) { return table.match(l).has_value(); }));
    hit_ns.push_back(ns_per_line(hit_lines, [&](std::string_view l) { return table.match(l).has_value(); }));
    find_ns.push_back(ns_per_line(misses, [&](std::string_view l) {
      std::size_t found = 0;
      for (const auto& literal : literals) found += l.find(literal) != std::string_view::npos;
      return found;
    }));
    set_ns.push_back(ns_per_line(misses, [&](std::string_view l) { return literal_set.Match(l, nullptr); }));
  }
  const double base = median(memchr_ns);
  std::printf("line_events: %zu patterns, %zu distinct literals, %zu ordinary lines of %.0f bytes on average, %d rounds (medians)\n",
              table.patterns().size(), literals.size(), misses.size(), static_cast<double>(bytes) / misses.size(), rounds);
  auto row = [&](const char* name, double ns) { std::printf("  %-11s %8.1f ns/line   %6.1fx memchr\n", name, ns, ns / base); };
  row("memchr", base);
  row("match-miss", median(miss_ns));
  row("match-hit", median(hit_ns));
  row("find-each", median(find_ns));
  row("re2-set", median(set_ns));
  std::printf("RESULT line_events miss_ns=%.1f hit_ns=%.1f memchr_ns=%.1f miss_over_memchr=%.1f find_each_ns=%.1f re2_set_ns=%.1f\n",
              median(miss_ns), median(hit_ns), base, median(miss_ns) / base, median(find_ns), median(set_ns));
  return 0;
}
