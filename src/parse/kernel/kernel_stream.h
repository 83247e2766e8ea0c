// A kernel log read as it comes, in bounded memory whatever its size: lines
// of text are split (KernelTextSplitter), scanned one at a time
// (KernelLineScanner) and their events kept in a KernelEventStore that holds
// the first and the last of each kind and counts the ones between. A 60 MB
// flood of Xid lines costs what its first and last few thousand cost.
// split_kernel_log and scan_kernel_lines (kernel_log.h) are these over text
// and lines held whole.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "parse/kernel/kernel_log.h"

namespace ftdiag::parse {

inline constexpr std::size_t kKernelEventKinds = std::variant_size_v<KernelEvent>;

struct StoredKernelEvent {
  KernelEvent event;
  std::string text;  // the line that logged it, cut at the store's text limit
};

class KernelEventStore {
 public:
  // Whether an event of that stamp is wanted (a time window); the rest is
  // dropped uncounted, as if it had not been logged.
  using Admit = std::function<bool(const KernelStamp&)>;
  static constexpr std::size_t kKeepAll = std::numeric_limits<std::size_t>::max() / 4;

  // keep_per_end: how many of each kind are kept at the log's start, and as
  // many at its end.
  explicit KernelEventStore(std::size_t keep_per_end = kKeepAll, std::size_t max_text = 4096, Admit admit = {});

  // The id the next event gets: events are numbered in log order from 0.
  std::size_t next_id() const { return next_id_; }
  // Adds an event, logged by the line `line`; returns its id.
  std::size_t add(KernelEvent event, std::string_view line);
  // The event of that id while it is kept; null once left out, or when it
  // was not admitted. (A later line may complete an event: the oom_reaper
  // line after its kill.)
  KernelEvent* find(std::size_t id);

  // The kept events in log order, moved out.
  std::vector<StoredKernelEvent> take();
  // How many of each kind (KernelEvent's index) were left out between the
  // first and the last kept.
  const std::array<std::uint64_t, kKernelEventKinds>& left_out() const { return left_out_; }
  std::size_t keep_per_end() const { return keep_; }

 private:
  std::size_t keep_;
  std::size_t max_text_;
  Admit admit_;
  std::size_t next_id_ = 0;
  std::map<std::size_t, StoredKernelEvent> kept_;
  std::array<std::size_t, kKernelEventKinds> first_kept_{};
  std::array<std::deque<std::size_t>, kKernelEventKinds> last_ids_;
  std::array<std::uint64_t, kKernelEventKinds> left_out_{};
};

// scan_kernel_lines one line at a time: the events go to `events` (which
// must outlive the scanner) as their lines are read.
class KernelLineScanner {
 public:
  explicit KernelLineScanner(KernelEventStore& events);
  ~KernelLineScanner();
  KernelLineScanner(const KernelLineScanner&) = delete;
  KernelLineScanner& operator=(const KernelLineScanner&) = delete;

  void feed(const KernelLine& line);
  // The end of the log: what a report cut short still says is added.
  void finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// split_kernel_log one line of text at a time: `line` without its "\n" (a
// "\r" in it still breaks it), `number` its 1-based place in the text. What
// spans lines (dmesg -J's spread-out records, indented continuations) is
// kept between calls.
class KernelTextSplitter {
 public:
  explicit KernelTextSplitter(const KernelTextOptions& options = {});
  ~KernelTextSplitter();
  KernelTextSplitter(const KernelTextSplitter&) = delete;
  KernelTextSplitter& operator=(const KernelTextSplitter&) = delete;

  void feed(std::string_view line, std::uint64_t number);
  // The KernelLines completed since the last call, in order.
  std::vector<KernelLine> take();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ftdiag::parse
