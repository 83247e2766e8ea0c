// A journal file cut into chunks of whole lines, for read_journal to parse
// (on several threads) and deliver in order.
//
// Each chunk holds the lines read since the last one, every line ending in
// "\n" (the file's last line, if it has none, gets one), followed by at
// least `padding` bytes the parser may read. Chunks are about `chunk_bytes`
// long; a longer line makes its chunk longer, up to `max_line` bytes of that
// line. A line found longer than that is never held whole: the chunker reads
// past it and hands over a piece of no text that gives its length instead.
// Lines that fit in a chunk but exceed `max_line` (the chunk's buffer was
// grown past it while looking for their end) are the parser's to refuse.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace ftdiag::journal {

struct JournalChunk {
  std::unique_ptr<char[]> text;        // whole lines, then padding; null for a skipped line
  std::size_t size = 0;                // bytes of lines, "\n" included
  std::size_t capacity = 0;            // bytes readable from text: size + padding at least
  std::uint64_t skipped_line_bytes = 0;  // not 0: this piece is one line over max_line, skipped (no text)
};

class JournalChunker {
 public:
  // `fd` is open for reading and stays the caller's.
  JournalChunker(int fd, std::size_t chunk_bytes, std::size_t max_line, std::size_t padding);

  // The next piece of the file; nullopt at its end, or after a read failed
  // (error() then holds its errno; the whole lines read before it came
  // first, the line it cut short is dropped).
  std::optional<JournalChunk> next();
  int error() const { return error_; }
  std::uint64_t bytes_read() const { return bytes_read_; }

  // Takes a delivered chunk's buffer back for the next chunks.
  void recycle(JournalChunk&& chunk);
  // The size of the chunks from now on (the chunk being filled included).
  void set_chunk_bytes(std::size_t chunk_bytes);
  std::size_t chunk_bytes() const { return chunk_bytes_; }

 private:
  struct Buffer {
    std::unique_ptr<char[]> data;
    std::size_t capacity = 0;  // readable bytes: room for data, "\n" and padding
  };
  std::size_t room() const { return buffer_.capacity - padding_ - 1; }  // bytes of data it may hold
  std::size_t target() const { return std::min(chunk_bytes_, room()); }  // bytes to hand over at once
  Buffer fresh_buffer(std::size_t data_bytes);
  bool read_more();
  std::optional<JournalChunk> cut();
  std::optional<JournalChunk> last_line();
  std::optional<JournalChunk> skip_line();
  void grow();

  int fd_;
  std::size_t chunk_bytes_;
  std::size_t max_line_;
  std::size_t padding_;
  Buffer buffer_;
  std::size_t filled_ = 0;   // [0, filled_) holds data: the start of a line, then what follows
  std::size_t scanned_ = 0;  // no "\n" in [0, scanned_)
  bool end_of_file_ = false;
  int error_ = 0;
  bool skipping_ = false;  // inside a line over max_line
  std::uint64_t skipped_ = 0;  // its bytes so far
  std::uint64_t bytes_read_ = 0;
  std::vector<Buffer> spare_;  // buffers of chunk_bytes given back
};

}  // namespace ftdiag::journal
