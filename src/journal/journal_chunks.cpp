#include "journal/journal_chunks.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ftdiag::journal {

namespace {

// A chunk's buffers kept for reuse: as many as read_journal has in flight
// at most, so that a long read allocates almost nothing after its start.
constexpr std::size_t kSpareBuffers = 16;

}  // namespace

JournalChunker::JournalChunker(int fd, std::size_t chunk_bytes, std::size_t max_line, std::size_t padding)
    : fd_(fd), chunk_bytes_(chunk_bytes), max_line_(max_line), padding_(padding) {
  buffer_ = fresh_buffer(chunk_bytes_);
}

JournalChunker::Buffer JournalChunker::fresh_buffer(std::size_t data_bytes) {
  if (data_bytes == chunk_bytes_ && !spare_.empty()) {
    Buffer reused = std::move(spare_.back());
    spare_.pop_back();
    return reused;
  }
  // Room for the data, a "\n" after a last line that has none, the padding.
  const std::size_t capacity = data_bytes + 1 + padding_;
  return Buffer{std::make_unique_for_overwrite<char[]>(capacity), capacity};
}

void JournalChunker::set_chunk_bytes(std::size_t chunk_bytes) {
  chunk_bytes_ = chunk_bytes;
  spare_.clear();  // of the size before
}

void JournalChunker::recycle(JournalChunk&& chunk) {
  if (chunk.text && chunk.capacity == chunk_bytes_ + 1 + padding_ && spare_.size() < kSpareBuffers) {
    spare_.push_back(Buffer{std::move(chunk.text), chunk.capacity});
  }
}

std::optional<JournalChunk> JournalChunker::next() {
  while (true) {
    if (skipping_) return skip_line();
    if (end_of_file_ && filled_ == 0) return std::nullopt;
    if (filled_ >= target() || end_of_file_ || error_ != 0) {
      if (auto chunk = cut()) return chunk;
      if (error_ != 0) return std::nullopt;
      if (end_of_file_) return last_line();
      // The buffer holds the start of one line and nothing else.
      if (filled_ == room()) {
        if (filled_ > max_line_) {
          // Too long to hold: read past it, in a buffer of the usual size.
          skipping_ = true;
          skipped_ = filled_;
          buffer_ = fresh_buffer(chunk_bytes_);
          filled_ = scanned_ = 0;
          continue;
        }
        grow();
      }
    }
    read_more();
  }
}

bool JournalChunker::read_more() {
  // Up to the chunk's size; past it only to find the end of a long line.
  const std::size_t up_to = filled_ < target() ? target() : room();
  const ssize_t got = ::read(fd_, buffer_.data.get() + filled_, up_to - filled_);
  if (got < 0) {
    if (errno != EINTR) error_ = errno;
    return false;
  }
  if (got == 0) {
    end_of_file_ = true;
    return false;
  }
  filled_ += static_cast<std::size_t>(got);
  bytes_read_ += static_cast<std::uint64_t>(got);
  return true;
}

// The whole lines in the buffer, handed over with it; the unfinished line
// after them moves to a new buffer.
std::optional<JournalChunk> JournalChunker::cut() {
  char* data = buffer_.data.get();
  const void* hit = filled_ > scanned_ ? ::memrchr(data + scanned_, '\n', filled_ - scanned_) : nullptr;
  if (hit == nullptr) {
    scanned_ = filled_;
    return std::nullopt;
  }
  const std::size_t size = static_cast<std::size_t>(static_cast<const char*>(hit) - data) + 1;
  const std::size_t tail = filled_ - size;
  Buffer next = fresh_buffer(std::max(chunk_bytes_, tail));
  if (tail > 0) std::memcpy(next.data.get(), data + size, tail);
  JournalChunk chunk{std::move(buffer_.data), size, buffer_.capacity, 0};
  buffer_ = std::move(next);
  filled_ = scanned_ = tail;
  return chunk;
}

// What is left at the end of the file without a "\n": a line all the same.
std::optional<JournalChunk> JournalChunker::last_line() {
  if (filled_ == 0) return std::nullopt;
  const std::size_t size = filled_;
  filled_ = scanned_ = 0;
  if (size > max_line_) return JournalChunk{nullptr, 0, 0, size};
  buffer_.data[size] = '\n';  // the byte kept for it before the padding
  JournalChunk chunk{std::move(buffer_.data), size + 1, buffer_.capacity, 0};
  buffer_ = Buffer{};
  return chunk;
}

// Reads on to the end of a line over max_line, keeping none of it.
std::optional<JournalChunk> JournalChunker::skip_line() {
  char* data = buffer_.data.get();
  while (true) {
    const ssize_t got = ::read(fd_, data, room());
    if (got < 0) {
      if (errno == EINTR) continue;
      error_ = errno;
      skipping_ = false;
      return std::nullopt;
    }
    if (got == 0) {  // the file ends inside the line
      end_of_file_ = true;
      skipping_ = false;
      return JournalChunk{nullptr, 0, 0, skipped_};
    }
    bytes_read_ += static_cast<std::uint64_t>(got);
    const auto n = static_cast<std::size_t>(got);
    const void* hit = std::memchr(data, '\n', n);
    if (hit == nullptr) {
      skipped_ += n;
      continue;
    }
    const auto k = static_cast<std::size_t>(static_cast<const char*>(hit) - data);
    skipped_ += k;
    filled_ = n - k - 1;  // the next lines start after the "\n"
    scanned_ = 0;
    std::memmove(data, data + k + 1, filled_);
    skipping_ = false;
    return JournalChunk{nullptr, 0, 0, skipped_};
  }
}

// Room for more of one line, up to max_line of it and a read beyond.
void JournalChunker::grow() {
  Buffer bigger = fresh_buffer(std::min(2 * room(), max_line_ + chunk_bytes_));
  std::memcpy(bigger.data.get(), buffer_.data.get(), filled_);
  buffer_ = std::move(bigger);
}

}  // namespace ftdiag::journal
