#include "evidence/console_log.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "evidence/journal_writer.h"

namespace ftdiag::evidence {

ConsoleLogWriter::Pending& ConsoleLogWriter::pending_for(ConsoleStream stream) {
  switch (stream) {
    case ConsoleStream::out: return pending_[0];
    case ConsoleStream::err: return pending_[1];
    case ConsoleStream::terminal: return pending_[2];
  }
  return pending_[0];
}

void ConsoleLogWriter::end_line(ConsoleStream stream, Pending& pending) {
  out_ += fmt::format("{:.6f} {} ", pending.started, static_cast<char>(stream));
  out_ += pending.text;
  out_ += '\n';
  pending.text.clear();
  ++lines_;
}

void ConsoleLogWriter::feed(ConsoleStream stream, std::string_view bytes, double now) {
  Pending& pending = pending_for(stream);
  while (!bytes.empty()) {
    if (pending.after_cr) {
      pending.after_cr = false;
      if (bytes.front() == '\n') {  // "\r\n": the line already ended at "\r"
        bytes.remove_prefix(1);
        continue;
      }
    }
    // Copy the run of ordinary bytes up to the next line end in one go.
    const std::size_t room = kMaxLineBytes - pending.text.size();
    const std::size_t end = std::min(bytes.find_first_of("\r\n"), bytes.size());
    const std::size_t take = std::min(end, room);
    if (take > 0) {
      if (pending.text.empty()) pending.started = now;
      pending.text.append(bytes.substr(0, take));
      bytes.remove_prefix(take);
      if (pending.text.size() >= kMaxLineBytes) end_line(stream, pending);
      continue;
    }
    if (bytes.empty()) break;
    const char c = bytes.front();
    bytes.remove_prefix(1);
    if (pending.text.empty()) pending.started = now;  // an empty line
    end_line(stream, pending);
    pending.after_cr = (c == '\r');
  }
  if (out_.size() >= 64 * 1024) flush();
}

void ConsoleLogWriter::flush() {
  if (out_.empty()) return;
  write_all(fd_.get(), out_);
  out_.clear();
}

void ConsoleLogWriter::finish() {
  for (auto stream : {ConsoleStream::out, ConsoleStream::err, ConsoleStream::terminal}) {
    Pending& pending = pending_for(stream);
    if (!pending.text.empty()) end_line(stream, pending);
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
