#include "journal/console_log.h"

#include <unistd.h>

#if defined(__SSE2__) && !defined(FTDIAG_PORTABLE_LINE_SCAN)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <iterator>

#include <fmt/format.h>

#include "journal/journal_writer.h"
#include "journal/write_failures.h"

namespace ftdiag::journal {

using evidence::ConsoleStream;

namespace {

// Room past the buffer's end for emit's fixed-size copy of a short prefix.
constexpr std::size_t kSlack = 32;

static_assert(ConsoleLogWriter::kBufferBytes >= ConsoleLogWriter::kMaxLineBytes + 1024,
              "the buffer must hold the longest record: a prefix (at most 336 bytes), a line and its end");

// Copies a few bytes without a call to memcpy, which for the 1- to 16-byte
// texts of short lines costs more than the copy: two overlapping loads and
// stores of a fixed size cover every length in their range.
inline void copy_bytes(char* to, const char* from, std::size_t size) {
  if (size > 16) {
    std::memcpy(to, from, size);
  } else if (size >= 8) {
    std::uint64_t head, tail;
    std::memcpy(&head, from, 8);
    std::memcpy(&tail, from + size - 8, 8);
    std::memcpy(to, &head, 8);
    std::memcpy(to + size - 8, &tail, 8);
  } else if (size >= 4) {
    std::uint32_t head, tail;
    std::memcpy(&head, from, 4);
    std::memcpy(&tail, from + size - 4, 4);
    std::memcpy(to, &head, 4);
    std::memcpy(to + size - 4, &tail, 4);
  } else if (size > 0) {
    to[0] = from[0];
    to[size / 2] = from[size / 2];
    to[size - 1] = from[size - 1];
  }
}

#if defined(__SSE2__) && !defined(FTDIAG_PORTABLE_LINE_SCAN)

// Calls on_end(i) for every "\r" and "\n" of `bytes`, left to right, in one
// pass: 16 bytes are compared at a time into a mask of their line ends, then
// each set bit is one step, so a chunk of 2-byte lines costs a few
// instructions per line instead of a call (and far less than a test per byte).
template <typename OnEnd>
void for_each_line_end(std::string_view bytes, OnEnd&& on_end) {
  const char* data = bytes.data();
  const std::size_t size = bytes.size();
  const __m128i lf = _mm_set1_epi8('\n');
  const __m128i cr = _mm_set1_epi8('\r');
  std::size_t block = 0;
  for (; block + 16 <= size; block += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + block));
    auto mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, lf), _mm_cmpeq_epi8(v, cr))));
    while (mask != 0) {
      on_end(block + static_cast<std::size_t>(std::countr_zero(mask)));
      mask &= mask - 1;
    }
  }
  for (; block < size; ++block) {
    if (data[block] == '\n' || data[block] == '\r') on_end(block);
  }
}

#else

// Without SSE2 (or with FTDIAG_PORTABLE_LINE_SCAN defined, to test this path
// on x86): memchr for each kind of line end, each search resuming where the
// last one of its kind stopped, so every byte is scanned at most once per
// kind, and a chunk without "\r" costs one memchr for "\r" in all.
template <typename OnEnd>
void for_each_line_end(std::string_view bytes, OnEnd&& on_end) {
  constexpr std::size_t npos = std::string_view::npos;
  auto find = [&](std::size_t from, char c) {
    if (from >= bytes.size()) return npos;
    const void* hit = std::memchr(bytes.data() + from, c, bytes.size() - from);
    return hit == nullptr ? npos : static_cast<std::size_t>(static_cast<const char*>(hit) - bytes.data());
  };
  std::size_t next_lf = find(0, '\n');
  std::size_t next_cr = find(0, '\r');
  while (next_lf != npos || next_cr != npos) {
    const std::size_t end = std::min(next_lf, next_cr);
    on_end(end);
    if (end == next_lf) next_lf = find(end + 1, '\n');
    if (end == next_cr) next_cr = find(end + 1, '\r');
  }
}

#endif

}  // namespace

ConsoleLogWriter::ConsoleLogWriter(UniqueFd fd, std::shared_ptr<WriteFailures> failures)
    : fd_(std::move(fd)), failures_(std::move(failures)), out_(std::make_unique_for_overwrite<char[]>(kBufferBytes + kSlack)) {}

ConsoleLogWriter::StreamState& ConsoleLogWriter::state_for(ConsoleStream stream) {
  switch (stream) {
    case ConsoleStream::out: return streams_[0];
    case ConsoleStream::err: return streams_[1];
    case ConsoleStream::terminal: return streams_[2];
  }
  return streams_[0];
}

void ConsoleLogWriter::format_prefix(ConsoleStream stream, StreamState& state, double time) {
  const auto result = fmt::format_to_n(state.prefix.data(), state.prefix.size(), "{:.6f} {} ", time,
                                       static_cast<char>(stream));
  state.prefix_size = std::min(result.size, state.prefix.size());
  state.prefix_time = time;
}

void ConsoleLogWriter::emit(ConsoleStream stream, StreamState& state, double time, std::string_view text) {
  // The lines of one chunk share the time they arrived at, so the prefix is
  // formatted once per chunk (and stream), not once per line.
  if (state.prefix_time != time) format_prefix(stream, state, time);
  const std::size_t size = state.prefix_size + text.size() + 1;
  if (out_size_ + size > kBufferBytes) flush();  // then it fits: see the static_assert
  char* at = out_.get() + out_size_;
  if (state.prefix_size <= kSlack) {
    std::memcpy(at, state.prefix.data(), kSlack);  // a fixed size: no call; the excess is overwritten or unused
  } else {
    std::memcpy(at, state.prefix.data(), state.prefix_size);
  }
  at += state.prefix_size;
  copy_bytes(at, text.data(), text.size());
  at[text.size()] = '\n';
  out_size_ += size;
  ++lines_;
  if (observer_ != nullptr) observer_->on_line(time, stream, std::string_view(at, text.size()));
}

void ConsoleLogWriter::emit_pending(ConsoleStream stream, StreamState& state) {
  emit(stream, state, state.started, state.text);
  state.text.clear();
}

// A line whose end is in this chunk: `text` is its part in this chunk.
void ConsoleLogWriter::complete_line(ConsoleStream stream, StreamState& state, std::string_view text, double now) {
  if (!state.text.empty()) {
    const std::size_t take = std::min(text.size(), kMaxLineBytes - state.text.size());
    state.text.append(text.substr(0, take));
    text.remove_prefix(take);
    emit_pending(stream, state);
    if (text.empty()) return;
  }
  // Here the (rest of the) line arrived whole in this chunk: it is written
  // straight from the chunk, never copied into the pending text.
  while (text.size() > kMaxLineBytes) {
    emit(stream, state, now, text.substr(0, kMaxLineBytes));
    text.remove_prefix(kMaxLineBytes);
  }
  emit(stream, state, now, text);
}

// Bytes after the chunk's last line end: kept until the line ends. A line is
// cut only when a byte beyond kMaxLineBytes arrives, so one of exactly
// kMaxLineBytes followed by its line end stays one record.
void ConsoleLogWriter::keep_partial(ConsoleStream stream, StreamState& state, std::string_view text, double now) {
  while (!text.empty()) {
    if (state.text.size() == kMaxLineBytes) emit_pending(stream, state);
    if (state.text.empty()) state.started = now;
    const std::size_t take = std::min(text.size(), kMaxLineBytes - state.text.size());
    state.text.append(text.substr(0, take));
    text.remove_prefix(take);
  }
}

void ConsoleLogWriter::feed(ConsoleStream stream, std::string_view bytes, double now) {
  StreamState& state = state_for(stream);
  if (state.after_cr && !bytes.empty()) {
    state.after_cr = false;
    if (bytes.front() == '\n') bytes.remove_prefix(1);  // "\r\n" split across chunks: the line ended at "\r"
  }
  std::size_t at = 0;  // where the next line starts
  for_each_line_end(bytes, [&](std::size_t end) {
    if (end < at) return;  // the "\n" of a "\r\n", taken with its "\r"
    const std::string_view text(bytes.data() + at, end - at);
    if (state.text.empty() && text.size() <= kMaxLineBytes) {
      emit(stream, state, now, text);  // the usual line: whole in this chunk
    } else {
      complete_line(stream, state, text, now);
    }
    at = end + 1;
    if (bytes[end] == '\r' && at < bytes.size() && bytes[at] == '\n') ++at;
  });
  // Every "\r" ends a line, so one at the very end may have its "\n" in the next chunk.
  if (!bytes.empty() && bytes.back() == '\r') state.after_cr = true;
  keep_partial(stream, state, bytes.substr(at), now);
}

void ConsoleLogWriter::flush() {
  if (out_size_ == 0) return;
  const std::string_view records(out_.get(), out_size_);
  out_size_ = 0;
  if (!failures_) {
    write_all(fd_.get(), records);
    return;
  }
  if (failures_->failed()) return;  // the record is incomplete already; the space left is the journal's
  if (const int error = write_all_or_errno(fd_.get(), records); error != 0) failures_->report(kFileName, "write", error);
}

void ConsoleLogWriter::finish() {
  for (auto stream : {ConsoleStream::out, ConsoleStream::err, ConsoleStream::terminal}) {
    StreamState& state = state_for(stream);
    if (!state.text.empty()) emit_pending(stream, state);
  }
  flush();
  if (::fdatasync(fd_.get()) != 0 && failures_) failures_->report(kFileName, "fdatasync", errno);
}

}  // namespace ftdiag::journal
