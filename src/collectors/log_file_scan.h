// Reads a log that ftdiag did not write (a launcher's or trainer's console
// saved to a file, a Slurm output, a pasted excerpt) in one streaming pass,
// in bounded memory whatever its size, and keeps what the rules need: the
// launcher, scheduler and runtime lines (rules/log-events.json) as events,
// the training phases the lines mark (rules/phases.json), the kernel's
// messages wherever they appear, and the last lines — each with its line
// number, counted as an editor counts lines ("\n"; a "\r" redraw of a
// progress bar is part of its line).
//
// How it stays fast: blocks of the file are searched for every pattern at
// once (parse/text/multi_pattern.h); only the few lines that matched are read
// again by the exact readers. A line longer than a block is read in pieces
// of a block (a pattern split across two pieces is not seen).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/fact.h"
#include "evidence/document.h"

namespace ftdiag::parse {
class LineEventTable;
}

namespace ftdiag::evidence {
class FailureWords;
class PhaseTable;
}  // namespace ftdiag::evidence

namespace ftdiag::collectors {

// A log file's evidence and the kernel messages found in it (to be joined
// with the host's kernel log).
struct ScannedLog {
  evidence::LogFileEvidence log;
  std::vector<evidence::LogEvent> kernel_events;
};

class LogScanner {
 public:
  // Any table may be null (its lines are then not recognised); each must
  // outlive the scanner. The failure words are read on the last lines only. When the patterns cannot be searched at once (a
  // rule file with a construct Hyperscan lacks) every line is read by the
  // exact readers: slower, the same evidence; fallback_reason() says why.
  // With `cache_dir`, the compiled search is kept there between runs (by a
  // fingerprint of the patterns and the Hyperscan build), which saves the
  // few tenths of a second compiling costs at every start.
  LogScanner(const evidence::PhaseTable* phases, const parse::LineEventTable* events,
             const evidence::FailureWords* words = nullptr, std::optional<std::filesystem::path> cache_dir = std::nullopt);
  LogScanner(LogScanner&&) noexcept;
  ~LogScanner();

  // Reads a regular file. Missing when it cannot be opened; a read that
  // fails midway keeps what was read and says so in `complete`. The bytes
  // read are added to `bytes_read` as they are read (a progress report's
  // counter, shared by the threads that read files; may be null).
  // With threads > 1, a file of kParallelMinBytes or more is read in that
  // many parts at once (each from a line start), then joined in order: the
  // same evidence as one pass, in a fraction of the time on several cores.
  Fact<ScannedLog> scan_file(const std::filesystem::path& file, const std::string& collector,
                             std::atomic<std::uint64_t>* bytes_read = nullptr, std::size_t threads = 1) const;
  // The same for a file already open (beneath the folder analyzed:
  // base/tree_reads.h), read from byte `begin` on (past the NULs a
  // copytruncate left at its start); `file` names it in the evidence.
  Fact<ScannedLog> scan_descriptor(int fd, const std::filesystem::path& file, const std::string& collector, std::uint64_t begin,
                                   std::atomic<std::uint64_t>* bytes_read = nullptr, std::size_t threads = 1) const;
  // The same for text in memory (tests, fuzzing); `from` names it. Stamps
  // without a year (syslog, glog) are placed in `year`, else left untimed.
  ScannedLog scan_text(std::string_view text, const evidence::Provenance& from, std::optional<int> year = std::nullopt) const;

  const std::string& fallback_reason() const;

  // Bytes per block (a longer line is read in pieces of this size).
  static constexpr std::size_t kBlockBytes = std::size_t{4} << 20;
  static constexpr std::size_t kTailLines = 200;
  static constexpr std::uint64_t kParallelMinBytes = std::uint64_t{64} << 20;
  static constexpr std::size_t kTailReadBytes = std::size_t{1} << 20;
  static constexpr std::size_t kMaxKernelTextBytes = std::size_t{8} << 20;

  struct Patterns;  // compiled (log_file_scan.cpp)

 private:
  const evidence::PhaseTable* phases_;
  const parse::LineEventTable* events_;
  const evidence::FailureWords* words_;
  std::unique_ptr<Patterns> patterns_;
};

// Whether a file's first bytes read as text a person or a program printed
// (not an ELF, archive, pickle, weights or other binary).
bool looks_like_text(std::string_view head);

}  // namespace ftdiag::collectors
