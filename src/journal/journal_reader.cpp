// read_journal: the file cut into chunks of whole lines (journal_chunks.h) on
// the calling thread, the chunks parsed on worker threads, their records and
// problems handed to the sink on the calling thread in file order. The first
// chunk is parsed on the calling thread: where its lines are short, so are
// the rest, and the whole file is (workers would not pay).
//
// Line numbers are counted at delivery: a worker numbers the lines of its
// chunk from 1, and the calling thread adds the lines of the chunks before.
// A bounded number of chunks is in flight (read, parsed or waiting to be
// delivered), so the memory a read takes does not grow with the file.
#include "journal/journal_reader.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "evidence/journal_parse.h"
#include "journal/journal_chunks.h"

namespace ftdiag::journal {

using evidence::JournalRecord;
using evidence::JournalLineParser;
using evidence::kMaxJournalLine;

namespace {

// In flight at most: two chunks per worker (one parsed while the other waits
// its turn), 4 MiB of text in all, and as many chunks delivered whose records
// the next ones reuse. A chunk is 1 MiB (less for more than two workers),
// or about 512 lines where lines are shorter than 2 KiB: a record takes
// about 1 KiB (sizeof(JournalRecord)) however short its line, so a chunk of
// short lines is cut smaller, lest its records fill the memory.
constexpr std::size_t kChunksPerWorker = 2;
constexpr std::size_t kMaxBytesInFlight = std::size_t{4} << 20;
constexpr std::size_t kMaxChunkBytes = std::size_t{1} << 20;
constexpr std::size_t kMinChunkBytes = std::size_t{64} << 10;
constexpr std::size_t kLinesPerChunk = 512;
// Lines shorter than this on average (a journal of short-lived processes:
// "process" and "death" lines of about 200 bytes) are parsed on the calling
// thread: handing their records from thread to thread costs more than their
// parsing (a journal of 220,000 such processes took twice the CPU on two
// workers, in the same wall time), while samples listing even a few
// processes (900 bytes and up) read twice as fast on two cores.
constexpr std::size_t kMinBytesPerLineForWorkers = 512;
// Nor do they for a journal of an hour or less (an idle job's 6 MB read in
// 30 ms), whose read would take twice the memory on workers: their heaps and
// the chunks in flight (16 MiB against 8 for an hour of 1 process).
constexpr std::uint64_t kMinFileBytesForWorkers = std::uint64_t{32} << 20;
// Past four workers the calling thread, which delivers every record to the
// sink (RunBuilder for `ftdiag analyze`), is what limits the speed, and each
// worker's malloc heap adds to the memory taken.
constexpr unsigned kMaxWorkers = 4;

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string over_the_limit(std::uint64_t bytes) {
  return fmt::format("{} bytes, over the limit of {} ({} MiB): skipped", bytes, kMaxJournalLine,
                     kMaxJournalLine >> 20);
}

// Parses a chunk's lines: emit(line, record or why not) for each line that
// is not empty, its number counted within the chunk from 1; spare() gives a
// record delivered before whose memory the line's may take over, or nullptr.
// Returns the chunk's lines.
template <class Spare, class Emit>
std::uint64_t parse_chunk(JournalLineParser& parser, const JournalChunk& chunk, Spare&& spare, Emit&& emit) {
  const char* text = chunk.text.get();
  std::uint64_t lines = 0;
  std::size_t start = 0;
  while (start < chunk.size) {
    // Every line of a chunk ends in "\n" (the chunker gives a last line one).
    const auto* newline = static_cast<const char*>(std::memchr(text + start, '\n', chunk.size - start));
    const auto end = static_cast<std::size_t>(newline - text);
    const std::size_t length = end - start;
    ++lines;
    if (length > kMaxJournalLine) {
      emit(lines, Fact<JournalRecord>(Missing{MissingReason::unparseable, over_the_limit(length)}));
    } else if (length > 1 || (length == 1 && text[start] != '\r')) {
      emit(lines, parser.parse_in_place(text + start, length, chunk.capacity - start, spare()));
    }
    start = end + 1;
  }
  return lines;
}

// A chunk's lines parsed on a worker, kept until their turn to be delivered.
// Once delivered, its records are spares for a chunk read later: reusing
// their memory (a sample's processes), the workers allocate and free almost
// nothing, which otherwise costs a fifth of the read in page faults (freed
// on this thread, megabytes at a time, the memory goes back to the kernel).
struct ParsedChunk {
  std::uint64_t lines = 0;
  std::vector<std::pair<std::uint64_t, Fact<JournalRecord>>> items;  // (line within the chunk, record or why not)
};

// A chunk on its way: read, parsed by a worker, delivered; then kept, its
// records spares for the next chunk it carries.
struct Slot {
  JournalChunk chunk;
  ParsedChunk parsed;
  std::exception_ptr failure;  // what parsing threw (std::bad_alloc), rethrown at delivery
  bool done = false;           // guarded by the pool's mutex
};

void parse_slot(JournalLineParser& parser, Slot& slot) {
  auto spares = std::move(slot.parsed.items);
  std::size_t next = 0;
  auto spare = [&]() -> JournalRecord* {
    while (next < spares.size()) {
      auto& record = spares[next++].second;
      if (record.has_value()) return &record.value();
    }
    return nullptr;
  };
  slot.parsed.items.clear();
  slot.parsed.items.reserve(spares.size());
  slot.parsed.lines = parse_chunk(parser, slot.chunk, spare, [&](std::uint64_t line, Fact<JournalRecord>&& record) {
    slot.parsed.items.emplace_back(line, std::move(record));
  });
}

// Worker threads parsing the slots submitted, each with its own parser.
class ParsePool {
 public:
  explicit ParsePool(unsigned workers) {
    for (unsigned i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
  }
  ~ParsePool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    work_ready_.notify_all();
    for (auto& t : threads_) t.join();
  }
  ParsePool(const ParsePool&) = delete;
  ParsePool& operator=(const ParsePool&) = delete;

  void submit(Slot& slot) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(&slot);
    }
    work_ready_.notify_one();
  }
  void wait(Slot& slot) {
    std::unique_lock lock(mutex_);
    slot_done_.wait(lock, [&] { return slot.done; });
  }

 private:
  void work() {
    JournalLineParser parser;
    std::unique_lock lock(mutex_);
    while (true) {
      work_ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      Slot& slot = *queue_.front();
      queue_.pop_front();
      lock.unlock();
      try {
        parse_slot(parser, slot);
      } catch (...) {
        slot.failure = std::current_exception();
      }
      lock.lock();
      slot.done = true;
      slot_done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable slot_done_;
  std::deque<Slot*> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// Hands records and problems to the sink, numbering the lines.
class Delivery {
 public:
  explicit Delivery(JournalSink& sink) : sink_(sink) {}

  // Line `line` of the chunk that starts after the lines delivered so far.
  // A record stays in `record`, moved from or not, for its memory's reuse.
  void line(std::uint64_t line, Fact<JournalRecord>& record) {
    if (record.has_value()) {
      ++stats_.records;
      sink_.on_record(std::move(record.value()));
    } else {
      problem(stats_.lines + line, record.missing().detail);
    }
  }
  // The chunk's lines are delivered.
  void end_of_chunk(const JournalChunk& chunk, std::uint64_t lines) {
    stats_.lines += lines;
    if (chunk.skipped_line_bytes > 0) {
      problem(stats_.lines + 1, over_the_limit(chunk.skipped_line_bytes));
      ++stats_.lines;
    }
  }
  void chunk(Slot& slot) {
    if (slot.failure) std::rethrow_exception(slot.failure);
    for (auto& [number, record] : slot.parsed.items) line(number, record);
    end_of_chunk(slot.chunk, slot.parsed.lines);
  }
  JournalReadStats& stats() { return stats_; }

 private:
  void problem(std::uint64_t line, std::string reason) {
    ++stats_.problems;
    sink_.on_problem(line, std::move(reason));
  }

  JournalSink& sink_;
  JournalReadStats stats_;
};

unsigned usable_cpus() {
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  if (::sched_getaffinity(0, sizeof cpus, &cpus) == 0) return static_cast<unsigned>(CPU_COUNT(&cpus));
  return std::max(1u, std::thread::hardware_concurrency());
}

unsigned worker_count(const JournalReadOptions& options, std::uint64_t file_size) {
  if (file_size <= kMaxChunkBytes) return 1;
  if (options.threads == 0 && file_size < kMinFileBytesForWorkers) return 1;
  const unsigned wanted = options.threads != 0 ? options.threads : std::min(usable_cpus(), kMaxWorkers);
  return std::max(1u, wanted);
}

// Parses on the calling thread, each line delivered as soon as it is parsed,
// into the memory of the record before.
class LineByLine {
 public:
  explicit LineByLine(Delivery& delivery) : delivery_(delivery) {}

  // Returns the chunk's lines.
  std::uint64_t chunk(const JournalChunk& chunk) {
    auto spare = [&] { return spare_ ? &*spare_ : nullptr; };
    const std::uint64_t lines =
        parse_chunk(parser_, chunk, spare, [&](std::uint64_t line, Fact<JournalRecord>&& record) {
          delivery_.line(line, record);
          if (record.has_value()) spare_ = std::move(record.value());
        });
    delivery_.end_of_chunk(chunk, lines);
    return lines;
  }
  void rest(JournalChunker& chunker) {
    while (auto next = chunker.next()) {
      chunk(*next);
      chunker.recycle(std::move(*next));
    }
  }

 private:
  Delivery& delivery_;
  JournalLineParser parser_;
  std::optional<JournalRecord> spare_;
};

// The size of the next chunks: about kLinesPerChunk lines of the length of
// those in `chunk`, within [kMinChunkBytes, largest]; changed only when off
// by half or more.
void fit_chunks_to_lines(JournalChunker& chunker, const JournalChunk& chunk, std::uint64_t lines,
                         std::size_t largest) {
  if (lines == 0 || chunk.size == 0) return;
  const std::size_t fit = std::clamp<std::size_t>(chunk.size / lines * kLinesPerChunk, kMinChunkBytes, largest);
  const std::size_t now = chunker.chunk_bytes();
  if (fit >= 2 * now || 2 * fit <= now) chunker.set_chunk_bytes(fit);
}

void read_on_workers(JournalChunker& chunker, Delivery& delivery, unsigned workers) {
  const std::size_t largest = chunker.chunk_bytes();
  chunker.set_chunk_bytes(kMinChunkBytes);  // until the lines' length is known
  std::deque<std::unique_ptr<Slot>> in_flight;  // in file order; outlive the pool, whose threads use them
  std::vector<std::unique_ptr<Slot>> delivered;  // their records spares for the next chunks
  ParsePool pool(workers);
  std::size_t bytes_in_flight = 0;
  bool more = true;
  while (true) {
    while (more && in_flight.size() < kChunksPerWorker * workers && bytes_in_flight < kMaxBytesInFlight) {
      auto chunk = chunker.next();
      if (!chunk) {
        more = false;
        break;
      }
      std::unique_ptr<Slot> slot = std::make_unique<Slot>();
      if (!delivered.empty()) {
        slot = std::move(delivered.back());
        delivered.pop_back();
      }
      slot->chunk = std::move(*chunk);
      slot->done = false;
      bytes_in_flight += slot->chunk.size;
      pool.submit(*slot);
      in_flight.push_back(std::move(slot));
    }
    if (in_flight.empty()) return;
    std::unique_ptr<Slot> slot = std::move(in_flight.front());
    in_flight.pop_front();
    pool.wait(*slot);
    bytes_in_flight -= slot->chunk.size;
    delivery.chunk(*slot);
    fit_chunks_to_lines(chunker, slot->chunk, slot->parsed.lines, largest);
    chunker.recycle(std::move(slot->chunk));
    delivered.push_back(std::move(slot));
  }
}

}  // namespace

Fact<JournalReadStats> read_journal(const std::filesystem::path& journal, JournalSink& sink,
                                    const JournalReadOptions& options) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  FileDescriptor fd(::open(journal.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) return missing_from_errno(errno, "open " + journal.string());
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return missing_from_errno(errno, "stat " + journal.string());
  if (S_ISDIR(st.st_mode)) return Missing{MissingReason::unparseable, journal.string() + " is a directory, not a file"};
  if (!S_ISREG(st.st_mode)) return Missing{MissingReason::unparseable, journal.string() + " is not a regular file"};
  ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);

  const unsigned workers = worker_count(options, static_cast<std::uint64_t>(st.st_size));
  const std::size_t chunk_bytes =
      std::clamp(kMaxBytesInFlight / (kChunksPerWorker * workers), kMinChunkBytes, kMaxChunkBytes);
  JournalChunker chunker(fd.get(), chunk_bytes, kMaxJournalLine, JournalLineParser::padding());
  Delivery delivery(sink);
  LineByLine on_this_thread(delivery);
  // The first chunk here: whether workers pay depends on the lines' length.
  bool workers_pay = false;
  if (auto first = chunker.next()) {
    const std::uint64_t lines = on_this_thread.chunk(*first);
    workers_pay = workers > 1 && first->size >= kMinBytesPerLineForWorkers * std::max<std::uint64_t>(lines, 1);
    chunker.recycle(std::move(*first));
  }
  if (workers_pay) {
    read_on_workers(chunker, delivery, workers);
  } else {
    on_this_thread.rest(chunker);
  }
  JournalReadStats& stats = delivery.stats();
  stats.bytes = chunker.bytes_read();
  if (chunker.error() != 0) {
    return missing_from_errno(chunker.error(), fmt::format("read {} (line {})", journal.string(), stats.lines + 1));
  }
  return stats;
}

}  // namespace ftdiag::journal
