#include "collectors/log_file_scan.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <deque>
#include <optional>
#include <thread>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <fmt/format.h>
#include <re2/re2.h>
#include <re2/set.h>

#include "base/files_at.h"
#include "base/read_file.h"
#include "base/unique_fd.h"
#include "collectors/log_scan_patterns.h"
#include "evidence/console_summary.h"
#include "evidence/kernel_events.h"
#include "evidence/failure_words.h"
#include "evidence/phase_table.h"
#include "evidence/quoted_line.h"
#include "parse/kernel/kernel_log.h"
#include "parse/logs/line_events.h"
#include "parse/logs/log_timestamp.h"
#include "parse/text/multi_pattern.h"

namespace ftdiag::collectors {

using evidence::PhaseTable;
using evidence::LogEvent;
using evidence::Provenance;
using evidence::LogPhase;
using evidence::LogLine;
using evidence::kMaxPhaseStretches;
using evidence::kMaxLogEvents;
using evidence::quoted_line;
using evidence::quoted_line_end;
using evidence::kMaxEventText;
using evidence::kMaxMarkerText;

namespace fs = std::filesystem;

struct LogScanner::Patterns {
  std::optional<parse::MultiPattern> all;  // events, then their literals, then phases, then kernel lines
  std::size_t events = 0;
  std::size_t hints = 0;  // the event entries' literals: a line that may be the head of a wrapped one
  std::size_t phases = 0;
  std::string fallback_reason;
  std::unique_ptr<re2::RE2::Set> kernel_set;  // the fallback's kernel-line test
};

namespace {

// How many times `byte` occurs in [from, to), 16 bytes compared at a time
// (std::count is not vectorised at -O2, and newlines are counted over every
// byte of a log). Each lane counts its hits as a byte (a compare gives -1,
// subtracted) for up to 255 rounds, then psadbw sums the lanes: SSE2 only,
// so it needs no popcnt, which a build for any x86-64 cannot assume.
std::uint64_t count_byte(const char* from, const char* to, char byte) {
  std::uint64_t count = 0;
#if defined(__SSE2__)
  const __m128i wanted = _mm_set1_epi8(byte);
  const __m128i zero = _mm_setzero_si128();
  while (to - from >= 16) {
    const std::size_t rounds = std::min<std::size_t>(static_cast<std::size_t>(to - from) / 16, 255);
    __m128i lanes = _mm_setzero_si128();
    for (std::size_t round = 0; round < rounds; ++round, from += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from));
      lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(v, wanted));
    }
    const __m128i sums = _mm_sad_epu8(lanes, zero);
    count += static_cast<std::uint64_t>(_mm_cvtsi128_si32(sums)) +
             static_cast<std::uint64_t>(_mm_cvtsi128_si32(_mm_unpackhi_epi64(sums, sums)));
  }
#endif
  return count + static_cast<std::uint64_t>(std::count(from, to, byte));
}

// NUL bytes are rare: memchr skips to each.
std::uint64_t count_nuls(const char* data, std::size_t size) {
  std::uint64_t count = 0;
  for (const char* end = data + size; (data = static_cast<const char*>(std::memchr(data, '\0', static_cast<std::size_t>(end - data)))); ++data) {
    ++count;
  }
  return count;
}

// A lone "\r" (not "\r\n") redraws its line from the start: a progress bar
// draws itself thousands of times on one line and a terminal shows only the
// last drawing. Only text after it overwrites: "\r\r\n" ends a line. The drawings a later "\r" overwrote are cut out of the block
// (the rest moved forward over them) before the search, so a bar costs the
// search of one line, not one per redraw, and every line keeps its number.
// A "\r" that ends the block is left: it may end a piece of a line longer
// than a block, and what follows it is not known yet. Returns the new size.
std::size_t drop_redraws(char* data, std::size_t size) {
  auto next_cr = [&](std::size_t from) {
    return from < size ? static_cast<char*>(std::memchr(data + from, '\r', size - from)) : nullptr;
  };
  std::size_t kept = 0;  // [0, kept): what stays
  std::size_t read = 0;  // [kept, read): dropped; [read, size): not looked at yet
  for (char* cr = next_cr(0); cr;) {
    const auto at = static_cast<std::size_t>(cr - data);
    std::size_t run_end = at + 1;  // "\r\r" moves to the line's start as one "\r" does
    while (run_end < size && data[run_end] == '\r') ++run_end;
    if (run_end == size) break;
    if (data[run_end] == '\n') {  // CRLF (or "\r\r\n"): one line end, nothing overwritten
      cr = next_cr(run_end + 1);
      continue;
    }
    // The drawing this "\r" ends began after the last line end before it.
    const void* line_end = at > read ? ::memrchr(data + read, '\n', at - read) : nullptr;
    const std::size_t drawing = line_end ? static_cast<std::size_t>(static_cast<const char*>(line_end) - data) + 1 : read;
    if (kept != read) std::memmove(data + kept, data + read, drawing - read);
    kept += drawing - read;
    read = run_end;
    cr = next_cr(read);
  }
  if (kept != read) std::memmove(data + kept, data + read, size - read);
  return kept + (size - read);
}

enum class PatternKind { event, hint, phase, kernel };

// A message a terminal or an issue form wrapped is read whole by joining its
// line with the next ones, at most this many.
constexpr std::size_t kWrappedContinuations = 2;
// A wrapped piece is short: a longer next line is another message.
constexpr std::size_t kMaxContinuationBytes = 400;
// A message cut into lines of one width (a terminal's or a form's columns:
// "... Worker IP address: 159.226.47" / ".239 Worker port: ...") is joined
// as cut, without a space, when its first line is at least this wide and
// the lines after it are as wide (the last one narrower), at most this many.
constexpr std::size_t kMinHardWrapWidth = 80;
constexpr std::size_t kMaxHardWrapPieces = 8;

struct LineFinds {
  bool event = false;
  bool hint = false;  // an event entry's literal, without its whole pattern
  std::optional<std::size_t> phase;  // lowest phase pattern index
  bool kernel = false;
};

class Scan {
 public:
  Scan(const LogScanner::Patterns& patterns, const PhaseTable* phases, const parse::LineEventTable* events,
       const evidence::FailureWords* words, Provenance from, std::optional<int> year)
      : patterns_(patterns), phases_(phases), events_(events), words_(words), from_(std::move(from)), year_(year) {
    if (patterns_.all) scratch_.emplace(patterns_.all->make_scratch());
  }

  // A block of whole lines (ending with "\n"), or a piece of a line longer
  // than a block. Modified in place: a lone "\r" becomes "\n".
  void block(char* data, std::size_t size) {
    if (size == 0) return;
    bytes_ += size;
    nul_bytes_ += count_nuls(data, size);
    last_byte_ = data[size - 1];
    size = drop_redraws(data, size);
    const std::string_view text(data, size);
    cursor_ = 0;
    newlines_before_cursor_ = 0;
    if (patterns_.all && scratch_) {
      matched_block(text);
    } else {
      every_line(text);
    }
    // The block's newlines were counted up to the last match; the rest now.
    line_ = line_number_at(text, size);
  }

  void read_failed(Missing why) {
    if (complete_) complete_ = std::move(why);  // the first failure tells from where
  }

  // `size` bytes of a hole: NULs that were not read. They belong to the line
  // they interrupt.
  void hole(std::uint64_t size) {
    if (size == 0) return;
    bytes_ += size;
    nul_bytes_ += size;
    last_byte_ = '\0';
  }

  // Takes in the scan of the part of the file that follows this one (read
  // by another thread from a line start): its line numbers follow ours.
  void absorb(Scan&& later) {
    const std::uint64_t offset = line_ - 1;
    auto shift = [offset](LogEvent& event) {
      if (event.from.line) *event.from.line += offset;
    };
    for (auto* part : {&later.first_events_}) {
      for (auto& event : *part) {
        shift(event);
        keep_event(std::move(event));
      }
    }
    for (auto& event : later.last_events_) {
      shift(event);
      keep_event(std::move(event));
    }
    events_dropped_ += later.events_dropped_;
    for (auto& phase : later.phases_seen_) {
      phase.first_line_number += offset;
      phase.last_line_number += offset;
      if (!phases_seen_.empty() && phases_seen_.back().phase == phase.phase) {
        phases_seen_.back().last_line_number = phase.last_line_number;
        phases_seen_.back().lines += phase.lines;
        continue;
      }
      phases_seen_.push_back(std::move(phase));
      if (phases_seen_.size() > kMaxPhaseStretches) phases_seen_.pop_front();
    }
    if (kernel_text_.size() + later.kernel_text_.size() <= LogScanner::kMaxKernelTextBytes) {
      kernel_text_ += later.kernel_text_;
      for (auto number : later.kernel_line_numbers_) kernel_line_numbers_.push_back(number + offset);
    }
    bytes_ += later.bytes_;
    nul_bytes_ += later.nul_bytes_;
    if (later.bytes_ > 0) last_byte_ = later.last_byte_;
    line_ += later.line_ - 1;
    if (!later.complete_) complete_ = std::move(later.complete_);
  }

  ScannedLog finish(std::string_view end_text, bool end_text_is_whole_file) && {
    ScannedLog out;
    auto& log = out.log;
    log.from = from_;
    log.bytes = bytes_;
    log.ends_mid_line = bytes_ > 0 && last_byte_ != '\n';
    log.line_count = line_ - 1 + (log.ends_mid_line ? 1 : 0);
    log.complete = complete_;
    log.nul_bytes = nul_bytes_;
    log.events = std::move(first_events_);
    log.events.insert(log.events.end(), std::make_move_iterator(last_events_.begin()),
                      std::make_move_iterator(last_events_.end()));
    log.events_dropped = events_dropped_;
    log.phases.assign(std::make_move_iterator(phases_seen_.begin()), std::make_move_iterator(phases_seen_.end()));
    log.tail = tail_lines(end_text, end_text_is_whole_file, log.line_count);
    // Only the last lines: a fallback's words cost nothing the log's size adds.
    if (words_) {
      for (auto& line : log.tail) {
        if (const auto word = words_->classify(line.text)) line.word = std::string(*word);
      }
    }
    log.kernel_lines = kernel_line_numbers_.size();
    out.kernel_events = kernel_events();
    return out;
  }

 private:
  // The line number of a position of the current block. Segments are
  // visited in order, so positions only move forward and every byte is
  // counted once (a position behind is counted again from the start).
  std::uint64_t line_number_at(std::string_view text, std::size_t pos) {
    if (pos < cursor_) {
      cursor_ = 0;
      newlines_before_cursor_ = 0;
    }
    newlines_before_cursor_ += count_byte(text.data() + cursor_, text.data() + pos, '\n');
    cursor_ = pos;
    return line_ + newlines_before_cursor_;
  }

  PatternKind kind_of(std::uint32_t id) const {
    if (id < patterns_.events) return PatternKind::event;
    if (id < patterns_.events + patterns_.hints) return PatternKind::hint;
    if (id < patterns_.events + patterns_.hints + patterns_.phases) return PatternKind::phase;
    return PatternKind::kernel;
  }

  void matched_block(std::string_view text) {
    matches_.clear();
    if (!patterns_.all->scan(text, *scratch_, matches_)) {
      complete_ = Missing{MissingReason::failed, "the pattern search failed on a block (too large or out of memory)"};
    }
    std::size_t i = 0;
    while (i < matches_.size()) {
      const std::size_t last = matches_[i].end == 0 ? 0 : matches_[i].end - 1;
      // The line that holds the match's last byte.
      std::size_t end = last;
      if (text[last] != '\n') {
        const void* nl = std::memchr(text.data() + last, '\n', text.size() - last);
        end = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - text.data()) : text.size();
      }
      const void* before = end == 0 ? nullptr : ::memrchr(text.data(), '\n', end);
      const std::size_t start = before ? static_cast<std::size_t>(static_cast<const char*>(before) - text.data()) + 1 : 0;
      LineFinds finds;
      for (; i < matches_.size() && matches_[i].end <= end + 1; ++i) {
        const auto id = matches_[i].pattern;
        switch (kind_of(id)) {
          case PatternKind::event: finds.event = true; break;
          case PatternKind::hint: finds.hint = true; break;
          case PatternKind::phase: {
            const std::size_t index = id - patterns_.events - patterns_.hints;
            if (!finds.phase || index < *finds.phase) finds.phase = index;
            break;
          }
          case PatternKind::kernel: finds.kernel = true; break;
        }
      }
      segment(text.substr(start, end - start), line_number_at(text, start), finds, false,
              end < text.size() ? text.substr(end + 1) : std::string_view());
    }
  }

  // Without the combined search: every line through the exact readers.
  void every_line(std::string_view text) {
    std::size_t start = 0;
    std::uint64_t number = line_;
    while (start < text.size()) {
      const auto nl = text.find('\n', start);
      const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
      const auto line = text.substr(start, end - start);
      LineFinds finds;
      finds.event = events_ != nullptr;
      finds.kernel = patterns_.kernel_set && patterns_.kernel_set->Match(line, nullptr);
      segment(line, number, finds, /*classify_phase=*/true, nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1));
      if (nl == std::string_view::npos) break;
      ++number;
      start = nl + 1;
    }
  }

  // `after`: the block's text after this segment, for a message wrapped over
  // the next lines.
  void segment(std::string_view text, std::uint64_t number, const LineFinds& finds, bool classify_phase = false,
               std::string_view after = {}) {
    while (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if ((finds.event || finds.hint) && events_) {
      if (auto matched = events_->match(text)) {
        if (auto whole = hard_wrapped_whole(text, *matched, after)) {
          note_event(std::move(whole->second), whole->first, number);
        } else {
          note_event(std::move(*matched), text, number);
        }
      } else {
        match_wrapped(text, number, after);
      }
    }
    if (phases_) {
      if (classify_phase) {
        if (auto phase = phases_->classify(text)) note_phase(std::string(*phase), text, number);
      } else if (finds.phase) {
        note_phase(phases_->phase_of_pattern(*finds.phase), text, number);
      }
    }
    if (finds.kernel && kernel_text_.size() + text.size() < LogScanner::kMaxKernelTextBytes) {
      kernel_text_.append(text);
      kernel_text_ += '\n';
      kernel_line_numbers_.push_back(number);
    }
  }

  // The time the line's text starts with; a stamp without a year (syslog,
  // glog) is placed in the year the file was last written.
  std::optional<double> time_of(std::string_view text) const {
    const auto stamp = parse::read_log_timestamp(text);
    if (!stamp) return std::nullopt;
    if (!stamp->month_day_only) return stamp->seconds;
    return year_ ? parse::seconds_in_year(*stamp, *year_) : std::nullopt;
  }

  // A line that holds an entry's literal but not its whole message, joined
  // with the lines after it as a terminal or an issue form wrapped them
  // ("... killed by signal: Bus" / "error. It is possible that ..."). The
  // event is placed on the first line and quotes the joined text.
  void match_wrapped(std::string_view head, std::uint64_t number, std::string_view after) {
    std::string joined(head);
    for (std::size_t piece = 0; piece < kWrappedContinuations && !after.empty(); ++piece) {
      const auto nl = after.find('\n');
      std::string_view next = after.substr(0, nl);
      after = nl == std::string_view::npos ? std::string_view() : after.substr(nl + 1);
      while (!next.empty() && (next.back() == '\r' || next.back() == ' ')) next.remove_suffix(1);
      while (!next.empty() && next.front() == ' ') next.remove_prefix(1);
      if (next.empty() || next.size() > kMaxContinuationBytes) return;
      // A line that is a message of its own is no continuation (a traceback
      // quotes the code that raises a message, then prints the message).
      if (events_->match(next)) return;
      while (!joined.empty() && joined.back() == ' ') joined.pop_back();
      joined += ' ';
      joined += next;
      if (auto matched = events_->match(joined)) {
        note_event(std::move(*matched), joined, number);
        return;
      }
    }
  }

  // A line that matched, cut at a fixed width with the rest of its message
  // on the lines after it: the whole message and what it says, when the
  // pieces joined as cut tell more of it (a field the cut left out). Lines
  // of one width that are messages of their own are not pieces.
  std::optional<std::pair<std::string, parse::LineEvent>> hard_wrapped_whole(std::string_view head,
                                                                          const parse::LineEvent& matched,
                                                                          std::string_view after) const {
    const std::size_t width = head.size();
    if (width < kMinHardWrapWidth || after.empty()) return std::nullopt;
    std::string joined(head);
    for (std::size_t piece = 0; piece < kMaxHardWrapPieces && !after.empty(); ++piece) {
      const auto nl = after.find('\n');
      std::string_view next = after.substr(0, nl);
      after = nl == std::string_view::npos ? std::string_view() : after.substr(nl + 1);
      while (!next.empty() && next.back() == '\r') next.remove_suffix(1);
      if (next.empty() || next.size() > width || events_->match(next)) break;
      joined += next;
      if (next.size() < width) break;  // the last piece
    }
    if (joined.size() == width) return std::nullopt;
    auto whole = events_->match(joined);
    if (!whole || whole->kind != matched.kind || told(*whole) <= told(matched)) return std::nullopt;
    return std::make_pair(std::move(joined), std::move(*whole));
  }

  // How much a matched message says: its typed fields and details.
  static std::size_t told(const parse::LineEvent& event) {
    return event.details.size() + event.pid.has_value() + event.signal.has_value() + event.exit_code.has_value() +
           event.rank.has_value();
  }

  void note_event(parse::LineEvent matched, std::string_view text, std::uint64_t number) {
    LogEvent event{.kind = std::move(matched.kind),
                   .time = time_of(text),
                   .from = Provenance{.collector = from_.collector, .file = from_.file, .line = number},
                   .text = quoted_line(text, kMaxEventText),
                   .pid = matched.pid,
                   .signal = matched.signal,
                   .exit_code = matched.exit_code,
                   .rank = matched.rank,
                   .details = std::move(matched.details),
                   .means = std::move(matched.means)};
    event.details["source"] = matched.source;
    keep_event(std::move(event));
  }

  // The first events tell how the end began, the last how it ended.
  void keep_event(LogEvent event) {
    if (first_events_.size() < kMaxLogEvents / 2) {
      first_events_.push_back(std::move(event));
      return;
    }
    last_events_.push_back(std::move(event));
    if (last_events_.size() > kMaxLogEvents / 2) {
      last_events_.pop_front();
      ++events_dropped_;
    }
  }

  void note_phase(const std::string& phase, std::string_view text, std::uint64_t number) {
    if (!phases_seen_.empty() && phases_seen_.back().phase == phase) {
      phases_seen_.back().last_line_number = number;
      ++phases_seen_.back().lines;
      return;
    }
    phases_seen_.push_back(LogPhase{.phase = phase,
                                    .first_line_number = number,
                                    .last_line_number = number,
                                    .lines = 1,
                                    .first_line = std::string(text.substr(0, kMaxMarkerText)),
                                    .first_time = time_of(text)});
    if (phases_seen_.size() > kMaxPhaseStretches) phases_seen_.pop_front();
  }

  std::vector<LogEvent> kernel_events() const {
    if (kernel_text_.empty()) return {};
    auto lines = parse::split_kernel_log(kernel_text_);
    for (auto& line : lines) {
      if (line.line_number >= 1 && line.line_number <= kernel_line_numbers_.size()) {
        line.line_number = kernel_line_numbers_[line.line_number - 1];
      }
    }
    // A file from another machine: printk stamps cannot be placed without
    // its boot time, so only wall-clock renderings get times.
    return kernel_log_events(lines, std::nullopt, Provenance{.collector = from_.collector, .file = from_.file});
  }

  // The last lines, from the end of the file: what a terminal showed (the
  // last redraw of a "\r" line), numbered back from the line count.
  static std::vector<LogLine> tail_lines(std::string_view text, bool whole_file, std::uint64_t line_count) {
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start < text.size()) {
      const auto nl = text.find('\n', start);
      const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
      lines.push_back(text.substr(start, end - start));
      if (nl == std::string_view::npos) break;
      start = nl + 1;
    }
    // The first line of a read that began mid-file is a part of a line,
    // left out unless it is the only one (the end of a line longer than the
    // read: what a terminal showed last is there; its start is not known).
    const bool starts_unread = !whole_file && lines.size() == 1;
    if (!whole_file && lines.size() > 1) lines.erase(lines.begin());
    const std::size_t keep = std::min(lines.size(), LogScanner::kTailLines);
    std::vector<LogLine> out;
    out.reserve(keep);
    for (std::size_t k = lines.size() - keep; k < lines.size(); ++k) {
      std::string_view line = lines[k];
      while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (const auto cr = line.rfind('\r'); cr != std::string_view::npos) line = line.substr(cr + 1);
      const std::uint64_t from_end = lines.size() - 1 - k;
      out.push_back(LogLine{.line_number = line_count > from_end ? line_count - from_end : 0,
                            .text = starts_unread ? quoted_line_end(line, kMaxEventText) : quoted_line(line, kMaxEventText)});
    }
    return out;
  }

  const LogScanner::Patterns& patterns_;
  const PhaseTable* phases_;
  const parse::LineEventTable* events_;
  const evidence::FailureWords* words_;
  Provenance from_;
  std::optional<int> year_;
  std::optional<parse::MultiPattern::Scratch> scratch_;
  std::vector<parse::MultiPattern::Match> matches_;
  std::size_t cursor_ = 0;
  std::uint64_t newlines_before_cursor_ = 0;
  std::uint64_t line_ = 1;  // the line the next block starts in
  std::uint64_t bytes_ = 0;
  std::uint64_t nul_bytes_ = 0;
  char last_byte_ = '\n';
  Fact<bool> complete_ = true;
  std::vector<LogEvent> first_events_;
  std::deque<LogEvent> last_events_;
  std::uint64_t events_dropped_ = 0;
  std::deque<LogPhase> phases_seen_;
  std::string kernel_text_;
  std::vector<std::uint64_t> kernel_line_numbers_;
};

// Where a block ends: after the last "\n" in it, or (a line longer than the
// block) at its end.
std::size_t block_end(const char* data, std::size_t size) {
  const void* nl = ::memrchr(data, '\n', size);
  return nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - data) + 1 : size;
}

}  // namespace

namespace {

// The compiled patterns from the cache, when a file there has their
// fingerprint and reads back; else compiled, and written there for the next
// run (a temporary file renamed into place: readers see a whole file or
// none). A cache that cannot be read or written costs only the compile.
// Only a cache folder of our own is used: a database read back is trusted
// code for Hyperscan, and root with another user's HOME must not load what
// that user put there.
std::variant<parse::MultiPattern, std::string> compiled_patterns(const std::vector<std::string>& all,
                                                                 const std::optional<fs::path>& cache_dir) {
  if (!cache_dir) return parse::MultiPattern::compile(all);
  auto folder = make_directories(*cache_dir);
  struct stat st {};
  if (!folder || ::fstat(folder->get(), &st) != 0 || st.st_uid != ::geteuid() || (st.st_mode & 022) != 0) {
    return parse::MultiPattern::compile(all);
  }
  const std::string file = "patterns-" + parse::MultiPattern::fingerprint(all) + ".hsdb";
  if (auto bytes = read_small_file_at(folder->get(), file, std::size_t{64} << 20)) {
    if (auto loaded = parse::MultiPattern::deserialize(bytes.value(), all.size())) return std::move(*loaded);
  }
  auto compiled = parse::MultiPattern::compile(all);
  const auto* multi = std::get_if<parse::MultiPattern>(&compiled);
  if (!multi) return compiled;
  // Created 0600 and never through a link (base/files_at.h).
  if (const auto bytes = multi->serialize()) replace_file_at(folder->get(), file, *bytes);
  return compiled;
}

}  // namespace

LogScanner::LogScanner(const PhaseTable* phases, const parse::LineEventTable* events, const evidence::FailureWords* words,
                       std::optional<fs::path> cache_dir)
    : phases_(phases), events_(events), words_(words), patterns_(std::make_unique<Patterns>()) {
  std::vector<std::string> all;
  if (events_) {
    for (const auto& p : events_->patterns()) all.push_back(block_form_of_event_pattern(p.pattern));
  }
  patterns_->events = all.size();
  if (events_) {
    std::vector<std::string> literals;
    for (const auto& p : events_->patterns()) {
      if (std::find(literals.begin(), literals.end(), p.literal) == literals.end()) literals.push_back(p.literal);
    }
    for (const auto& literal : literals) all.push_back(RE2::QuoteMeta(literal));
  }
  patterns_->hints = all.size() - patterns_->events;
  if (phases_) {
    for (const auto& p : phases_->patterns()) all.push_back(block_form_of_phase_pattern(p));
  }
  patterns_->phases = all.size() - patterns_->events - patterns_->hints;
  const auto& kernel = kernel_line_patterns();
  all.insert(all.end(), kernel.begin(), kernel.end());
  auto compiled = compiled_patterns(all, cache_dir);
  if (auto* multi = std::get_if<parse::MultiPattern>(&compiled)) {
    patterns_->all.emplace(std::move(*multi));
    return;
  }
  patterns_->fallback_reason = std::get<std::string>(compiled);
  RE2::Options options;
  options.set_log_errors(false);
  patterns_->kernel_set = std::make_unique<RE2::Set>(options, RE2::UNANCHORED);
  for (const auto& pattern : kernel) patterns_->kernel_set->Add(pattern, nullptr);
  if (!patterns_->kernel_set->Compile()) patterns_->kernel_set.reset();
}

LogScanner::LogScanner(LogScanner&&) noexcept = default;
LogScanner::~LogScanner() = default;

const std::string& LogScanner::fallback_reason() const { return patterns_->fallback_reason; }

ScannedLog LogScanner::scan_text(std::string_view text, const Provenance& from, std::optional<int> year) const {
  Scan scan(*patterns_, phases_, events_, words_, from, year);
  std::string block;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t size = std::min(kBlockBytes, text.size() - at);
    const std::size_t end = at + size == text.size() ? size : block_end(text.data() + at, size);
    block.assign(text.substr(at, end));
    scan.block(block.data(), block.size());
    at += end;
  }
  return std::move(scan).finish(text.substr(text.size() - std::min(text.size(), kTailReadBytes)),
                                text.size() <= kTailReadBytes);
}

namespace {

// Reads [begin, end) of the file (begin at a line start) into `scan`, block
// by block.
void read_range(int fd, const fs::path& file, std::uint64_t begin, std::uint64_t end, Scan& scan,
                std::atomic<std::uint64_t>* bytes_read) {
  std::unique_ptr<char[]> buffer(new char[LogScanner::kBlockBytes]);
  std::size_t have = 0;
  std::uint64_t offset = begin;  // of buffer[0]
  for (;;) {
    const std::uint64_t left = end - (offset + have);
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(LogScanner::kBlockBytes - have, left));
    if (want > 0) {
      // A hole (a sparse file: truncate -s 100G, or a log preallocated and
      // never written) reads as NUL bytes: skipped by its extent, counted as
      // NULs, never read. Where SEEK_DATA is not offered, everything is read.
      const std::uint64_t at = offset + have;
      const off_t data = ::lseek(fd, static_cast<off_t>(at), SEEK_DATA);
      std::uint64_t next = at;
      if (data >= 0) next = std::min<std::uint64_t>(static_cast<std::uint64_t>(data), end);
      if (data < 0 && errno == ENXIO) next = end;  // a hole up to the end of the file
      if (next > at) {
        scan.hole(next - at);
        if (bytes_read) bytes_read->fetch_add(next - at, std::memory_order_relaxed);
        offset += next - at;  // buffer[0] keeps the line the hole interrupts
        continue;
      }
    }
    ssize_t n = 0;
    if (want > 0) n = ::pread(fd, buffer.get() + have, want, static_cast<off_t>(offset + have));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      scan.read_failed(missing_from_errno(errno, fmt::format("read {} at byte {}", file.string(), offset + have)));
      scan.block(buffer.get(), have);
      return;
    }
    if (n == 0) {
      if (offset + have < end) {
        // Short of the size it had when opened: truncated while read.
        scan.read_failed(Missing{MissingReason::failed,
                                 fmt::format("{} ended at byte {}, short of the {} bytes it had when opened: it was "
                                             "truncated (or rotated) while read",
                                             file.string(), offset + have, end)});
      }
      scan.block(buffer.get(), have);  // the last line, without a line end when the file has none
      return;
    }
    have += static_cast<std::size_t>(n);
    if (bytes_read) bytes_read->fetch_add(static_cast<std::uint64_t>(n), std::memory_order_relaxed);
    if (have < LogScanner::kBlockBytes && offset + have < end) continue;
    const std::size_t cut = offset + have == end ? have : block_end(buffer.get(), have);
    scan.block(buffer.get(), cut);
    offset += cut;
    have -= cut;
    std::memmove(buffer.get(), buffer.get() + cut, have);
    if (have == 0 && offset == end) return;
  }
}

// Where the parts of a large file read in parallel begin: just after a line
// end near each equal share (no line end within reach: fewer parts).
std::vector<std::uint64_t> part_starts(int fd, std::uint64_t begin, std::uint64_t size, std::size_t parts) {
  std::vector<std::uint64_t> starts{begin};
  if (parts < 2) return starts;
  constexpr std::size_t kReach = 1 << 20;
  std::string window(kReach, '\0');  // only for a file big enough to split (kParallelMinBytes)
  for (std::size_t k = 1; k < parts; ++k) {
    const std::uint64_t near = begin + (size - begin) / parts * k;
    if (near <= starts.back()) continue;
    const ssize_t n = ::pread(fd, window.data(), kReach, static_cast<off_t>(near));
    if (n <= 0) break;
    const void* nl = std::memchr(window.data(), '\n', static_cast<std::size_t>(n));
    if (!nl) continue;
    const std::uint64_t start = near + static_cast<std::uint64_t>(static_cast<const char*>(nl) - window.data()) + 1;
    if (start < size) starts.push_back(start);
  }
  return starts;
}

}  // namespace

Fact<ScannedLog> LogScanner::scan_file(const fs::path& file, const std::string& collector,
                                       std::atomic<std::uint64_t>* bytes_read, std::size_t threads) const {
  UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd.valid()) return missing_from_errno(errno, "open " + file.string());
  return scan_descriptor(fd.get(), file, collector, 0, bytes_read, threads);
}

Fact<ScannedLog> LogScanner::scan_descriptor(int fd, const fs::path& file, const std::string& collector, std::uint64_t begin,
                                             std::atomic<std::uint64_t>* bytes_read, std::size_t threads) const {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return missing_from_errno(errno, "stat " + file.string());
  if (!S_ISREG(st.st_mode)) return Missing{MissingReason::not_present, file.string() + " is not a regular file"};
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  struct tm written {};
  const time_t mtime = st.st_mtime;
  std::optional<int> year;
  if (::gmtime_r(&mtime, &written)) year = written.tm_year + 1900;
  const Provenance from{.collector = collector, .file = file.string()};
  // The size when opened: a log still growing is read up to there.
  const auto size = static_cast<std::uint64_t>(st.st_size);
  begin = std::min(begin, size);
  const std::size_t parts = size - begin >= kParallelMinBytes ? std::max<std::size_t>(1, threads) : 1;
  const auto starts = part_starts(fd, begin, size, parts);
  std::vector<Scan> scans;
  scans.reserve(starts.size());
  for (std::size_t k = 0; k < starts.size(); ++k) scans.emplace_back(*patterns_, phases_, events_, words_, from, year);
  auto read_part = [&](std::size_t k) {
    const std::uint64_t end = k + 1 < starts.size() ? starts[k + 1] : size;
    read_range(fd, file, starts[k], end, scans[k], bytes_read);
  };
  std::vector<std::thread> workers;
  for (std::size_t k = 1; k < starts.size(); ++k) workers.emplace_back(read_part, k);
  read_part(0);
  for (auto& worker : workers) worker.join();
  for (std::size_t k = 1; k < scans.size(); ++k) scans[0].absorb(std::move(scans[k]));
  // The tail is read again from the file: the blocks were changed in place.
  const std::size_t tail_bytes = static_cast<std::size_t>(std::min<std::uint64_t>(size - begin, kTailReadBytes));
  std::string tail(tail_bytes, '\0');
  ssize_t got = ::pread(fd, tail.data(), tail_bytes, static_cast<off_t>(size - tail_bytes));
  tail.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  // A file that shrank while read (truncated, or rotated by copytruncate)
  // may have lost what was read of it: the scan is not whole.
  struct stat after {};
  if (::fstat(fd, &after) == 0 && static_cast<std::uint64_t>(after.st_size) < size) {
    scans[0].read_failed(Missing{MissingReason::failed,
                                 fmt::format("{} shrank from {} to {} bytes while it was read (truncated or rotated)",
                                             file.string(), size, static_cast<std::uint64_t>(after.st_size))});
  }
  return std::move(scans[0]).finish(tail, size - begin <= kTailReadBytes);
}

bool looks_like_text(std::string_view head) {
  if (head.empty()) return true;
  for (std::string_view magic : {std::string_view("\x7f" "ELF"), std::string_view("PK\x03\x04"), std::string_view("\x1f\x8b"),
                                 std::string_view("\x80\x02"), std::string_view("\x80\x04"), std::string_view("BZh"),
                                 std::string_view("\xfd" "7zXZ"), std::string_view("\x28\xb5\x2f\xfd"),
                                 std::string_view("\x93NUMPY"), std::string_view("ARROW1"), std::string_view("PAR1")}) {
    if (head.substr(0, magic.size()) == magic) return false;
  }
  // Text has few control bytes; a log with a few NULs (a hole left by a
  // crash) is still a log.
  std::size_t control = 0;
  for (unsigned char c : head) control += (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\x1b' && c != '\b');
  return control * 10 < head.size();
}

}  // namespace ftdiag::collectors
