#include "evidence/console_log.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <iterator>

#include <fmt/format.h>

#include "evidence/journal_writer.h"

namespace ftdiag::evidence {

namespace {

constexpr std::size_t npos = std::string_view::npos;

// Finds the line ends ("\r" and "\n") of one chunk from left to right.
// Each kind is looked for with memchr, whose vectorised loop is many times
// faster than testing byte by byte, and each search resumes where the last
// one of its kind stopped: every byte is scanned at most once per kind, and a
// chunk without "\r" (the usual pipe output) costs one memchr for "\r" in all.
class LineEnds {
 public:
  explicit LineEnds(std::string_view bytes)
      : bytes_(bytes), next_lf_(find(bytes, 0, '\n')), next_cr_(find(bytes, 0, '\r')) {}

  // The first line end at or after `from`, or npos.
  std::size_t next(std::size_t from) {
    if (next_lf_ < from) next_lf_ = find(bytes_, from, '\n');
    if (next_cr_ < from) next_cr_ = find(bytes_, from, '\r');
    return std::min(next_lf_, next_cr_);
  }

 private:
  static std::size_t find(std::string_view bytes, std::size_t from, char c) {
    if (from >= bytes.size()) return npos;
    const void* hit = std::memchr(bytes.data() + from, c, bytes.size() - from);
    return hit == nullptr ? npos : static_cast<std::size_t>(static_cast<const char*>(hit) - bytes.data());
  }

  std::string_view bytes_;
  std::size_t next_lf_;  // npos once there is none left
  std::size_t next_cr_;
};

}  // namespace

ConsoleLogWriter::ConsoleLogWriter(UniqueFd fd) : fd_(std::move(fd)) {
  // Room for a full buffer plus the longest record, so appending never reallocates.
  out_.reserve(kFlushBytes + kMaxLineBytes + 64);
}

ConsoleLogWriter::StreamState& ConsoleLogWriter::state_for(ConsoleStream stream) {
  switch (stream) {
    case ConsoleStream::out: return streams_[0];
    case ConsoleStream::err: return streams_[1];
    case ConsoleStream::terminal: return streams_[2];
  }
  return streams_[0];
}

// Lines of one chunk share the time they arrived at, so the prefix is
// formatted once per chunk (per stream), not once per line.
const std::string& ConsoleLogWriter::prefix_for(ConsoleStream stream, StreamState& state, double time) {
  if (!state.prefix_valid || state.prefix_time != time) {
    state.prefix.clear();
    fmt::format_to(std::back_inserter(state.prefix), "{:.6f} {} ", time, static_cast<char>(stream));
    state.prefix_time = time;
    state.prefix_valid = true;
  }
  return state.prefix;
}

void ConsoleLogWriter::emit(ConsoleStream stream, StreamState& state, double time, std::string_view text) {
  out_.append(prefix_for(stream, state, time));
  const std::size_t text_at = out_.size();
  out_.append(text);
  out_.push_back('\n');
  ++lines_;
  if (observer_ != nullptr) observer_->on_line(time, stream, std::string_view(out_).substr(text_at, text.size()));
  // Checked per record, not per chunk: a chunk of short lines grows by up to
  // ten times its size once stamped.
  if (out_.size() >= kFlushBytes) flush();
}

void ConsoleLogWriter::emit_pending(ConsoleStream stream, StreamState& state) {
  emit(stream, state, state.started, state.text);
  state.text.clear();
}

// A line whose end is in this chunk: `text` is its part in this chunk.
void ConsoleLogWriter::complete_line(ConsoleStream stream, StreamState& state, std::string_view text, double now) {
  if (!state.text.empty()) {
    const std::size_t room = kMaxLineBytes - state.text.size();
    const std::size_t take = std::min(text.size(), room);
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
  LineEnds ends(bytes);
  std::size_t at = 0;
  for (std::size_t end = ends.next(at); end != npos; end = ends.next(at)) {
    complete_line(stream, state, bytes.substr(at, end - at), now);
    at = end + 1;
    if (bytes[end] == '\r') {
      if (at == bytes.size()) {
        state.after_cr = true;  // a "\n" may open the next chunk
      } else if (bytes[at] == '\n') {
        ++at;
      }
    }
  }
  keep_partial(stream, state, bytes.substr(at), now);
}

void ConsoleLogWriter::flush() {
  if (out_.empty()) return;
  write_all(fd_.get(), out_);
  out_.clear();
}

void ConsoleLogWriter::finish() {
  for (auto stream : {ConsoleStream::out, ConsoleStream::err, ConsoleStream::terminal}) {
    StreamState& state = state_for(stream);
    if (!state.text.empty()) emit_pending(stream, state);
  }
  flush();
  ::fdatasync(fd_.get());
}

Fact<ConsoleLine> parse_console_line(std::string_view line) {
  auto space = line.find(' ');
  if (space == std::string_view::npos || space + 2 > line.size()) {
    return Missing{MissingReason::unparseable, "console line without a timestamp and stream"};
  }
  ConsoleLine parsed;
  auto [end, error] = std::from_chars(line.data(), line.data() + space, parsed.time);
  if (error != std::errc() || end != line.data() + space) {
    return Missing{MissingReason::unparseable, "console line with a bad timestamp"};
  }
  parsed.stream = line[space + 1];
  if (parsed.stream != 'o' && parsed.stream != 'e' && parsed.stream != 't') {
    return Missing{MissingReason::unparseable, "console line with an unknown stream letter"};
  }
  if (space + 2 < line.size()) {
    if (line[space + 2] != ' ') return Missing{MissingReason::unparseable, "console line without a separator"};
    parsed.text = std::string(line.substr(space + 3));
  }
  return parsed;
}

}  // namespace ftdiag::evidence
