// Reading a kernel log: split_kernel_log + scan_kernel_lines against
// `grep -c 'Killed process'` on the same file, interleaved rep by rep so that
// a noisy machine slows both alike. The file comes from kernel_log_scan.py
// (a dmesg-format log of ordinary lines with OOM reports, segfaults and Xids)
// or any log given with --file; it is read once into memory (the scan is
// pure, the reader is not what is measured), while grep reads it from the
// page cache and writes its count to a file.
//
//   split      split_kernel_log alone
//   scan       split_kernel_log + scan_kernel_lines: what a caller pays
//   stream     the same lines split and scanned one at a time into a store
//              keeping the first and last 2500 events of each kind: what the
//              kernel-log collector pays (KernelTextSplitter, KernelLineScanner)
//   grep       `grep -c 'Killed process' FILE > OUT`, a child process
//
// usage: kernel_log_scan --file PATH [--reps R]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <variant>
#include <vector>

#include "parse/kernel/kernel_log.h"
#include "parse/kernel/kernel_stream.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;
using namespace ftdiag::parse;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

struct Counts {
  std::size_t lines = 0, kills = 0, faults = 0, xids = 0, suppressed = 0;
};

Counts scan(const std::string& text) {
  auto lines = split_kernel_log(text, {.year = 2026});
  auto events = scan_kernel_lines(lines);
  Counts counts;
  counts.lines = lines.size();
  for (const auto& event : events) {
    if (std::holds_alternative<OomKill>(event)) ++counts.kills;
    else if (std::holds_alternative<KernelFault>(event)) ++counts.faults;
    else if (std::holds_alternative<GpuXid>(event)) ++counts.xids;
    else ++counts.suppressed;
  }
  return counts;
}

// What the kernel-log collector does with what it reads: each line of text
// to the splitter, each KernelLine to the scanner, the events to a bounded store.
Counts stream(const std::string& text) {
  KernelEventStore store(2500);
  KernelLineScanner scanner(store);
  KernelTextSplitter splitter({.year = 2026});
  Counts counts;
  std::string_view rest = text;
  std::uint64_t number = 0;
  while (!rest.empty()) {
    const auto newline = rest.find('\n');
    splitter.feed(rest.substr(0, newline), ++number);
    rest.remove_prefix(newline == std::string_view::npos ? rest.size() : newline + 1);
    for (const auto& line : splitter.take()) {
      ++counts.lines;
      scanner.feed(line);
    }
  }
  for (const auto& kept : store.take()) {
    if (std::holds_alternative<OomKill>(kept.event)) ++counts.kills;
    else if (std::holds_alternative<KernelFault>(kept.event)) ++counts.faults;
    else if (std::holds_alternative<GpuXid>(kept.event)) ++counts.xids;
    else ++counts.suppressed;
  }
  return counts;
}

long grep_count(const fs::path& file, const fs::path& out) {
  const std::string command = "grep -c 'Killed process' '" + file.string() + "' > '" + out.string() + "'";
  if (std::system(command.c_str()) != 0) return -1;
  std::ifstream in(out);
  long count = -1;
  in >> count;
  return count;
}

}  // namespace

int main(int argc, char** argv) {
  fs::path file;
  int reps = 5;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--file") && i + 1 < argc) file = argv[++i];
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: kernel_log_scan --file PATH [--reps R]\n");
      return 2;
    }
  }
  std::ifstream in(file, std::ios::binary);
  if (file.empty() || !in) {
    std::fprintf(stderr, "kernel_log_scan: cannot read %s\n", file.c_str());
    return 2;
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t physical_lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  const fs::path grep_out = fs::temp_directory_path() / ("kernel_log_scan-grep-" + std::to_string(::getpid()));

  std::vector<double> split_s, scan_s, stream_s, grep_s;
  Counts counts, streamed;
  long grep_kills = 0;
  for (int rep = 0; rep < reps; ++rep) {
    auto start = Clock::now();
    auto lines = split_kernel_log(text, {.year = 2026});
    split_s.push_back(seconds_since(start));
    lines = {};
    start = Clock::now();
    counts = scan(text);
    scan_s.push_back(seconds_since(start));
    start = Clock::now();
    streamed = stream(text);
    stream_s.push_back(seconds_since(start));
    start = Clock::now();
    grep_kills = grep_count(file, grep_out);
    grep_s.push_back(seconds_since(start));
  }
  fs::remove(grep_out);

  const double mb = static_cast<double>(text.size()) / 1e6;
  const double split = median(split_s), total = median(scan_s), streaming = median(stream_s), grep = median(grep_s);
  std::printf("file: %s, %.1f MB, %zu lines (%zu kernel lines)\n", file.c_str(), mb, physical_lines, counts.lines);
  std::printf("found: %zu OOM kills (grep counts %ld 'Killed process' lines), %zu faults, %zu Xids, %zu suppressed\n",
              counts.kills, grep_kills, counts.faults, counts.xids, counts.suppressed);
  std::printf("%-8s %9s %14s %10s\n", "", "median", "lines/s", "MB/s");
  std::printf("%-8s %8.3fs %14.0f %10.1f\n", "split", split, physical_lines / split, mb / split);
  std::printf("%-8s %8.3fs %14.0f %10.1f\n", "scan", total, physical_lines / total, mb / total);
  std::printf("%-8s %8.3fs %14.0f %10.1f   (kept: %zu kills, %zu faults, %zu Xids, %zu suppressed)\n", "stream",
              streaming, physical_lines / streaming, mb / streaming, streamed.kills, streamed.faults, streamed.xids,
              streamed.suppressed);
  std::printf("%-8s %8.3fs %14.0f %10.1f\n", "grep -c", grep, physical_lines / grep, mb / grep);
  std::printf("RESULT kernel_log_scan lines=%zu scan_s=%.4g scan_lines_per_s=%.4g stream_s=%.4g grep_s=%.4g "
              "scan_over_grep=%.3g stream_over_scan=%.3g\n",
              physical_lines, total, physical_lines / total, streaming, grep, total / grep, streaming / total);
  return 0;
}
