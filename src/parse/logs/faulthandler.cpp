#include "parse/logs/faulthandler.h"

#include <algorithm>

#include <csignal>
#include <cstdlib>

namespace ftdiag::parse {

namespace {

constexpr std::size_t kMaxThreads = 256;
constexpr std::size_t kMaxFramesPerThread = 128;  // CPython prints 100, then "..."
constexpr std::size_t kMaxExtensionModules = 512;
constexpr std::string_view kFatal = "Fatal Python error: ";

std::optional<int> signal_of(std::string_view error) {
  if (error.starts_with("Segmentation fault")) return SIGSEGV;
  if (error.starts_with("Bus error")) return SIGBUS;
  if (error.starts_with("Illegal instruction")) return SIGILL;
  if (error.starts_with("Floating-point exception") || error.starts_with("Floating point exception")) return SIGFPE;
  if (error.starts_with("Aborted")) return SIGABRT;
  return std::nullopt;
}

std::string_view trim_end(std::string_view text) {
  while (!text.empty() && (text.back() == '\r' || text.back() == ' ' || text.back() == '\0')) text.remove_suffix(1);
  return text;
}

// "Thread 0x... (most recent call first):", "Current thread 0x... [name] (most ...):",
// "Stack (most recent call first):".
std::optional<PythonThread> thread_header(std::string_view line) {
  PythonThread thread;
  std::string_view rest;
  if (line.starts_with("Current thread ")) {
    thread.current = true;
    rest = line.substr(15);
  } else if (line.starts_with("Thread ")) {
    rest = line.substr(7);
  } else if (line == "Stack (most recent call first):") {
    thread.current = true;
    return thread;
  } else {
    return std::nullopt;
  }
  if (!rest.ends_with("(most recent call first):")) return std::nullopt;
  rest.remove_suffix(std::string_view("(most recent call first):").size());
  rest = trim_end(rest);
  const auto space = rest.find(' ');
  thread.id = std::string(rest.substr(0, space));
  if (space != std::string_view::npos) {
    auto name = rest.substr(space + 1);
    if (name.size() >= 2 && name.front() == '[' && name.back() == ']') thread.name = std::string(name.substr(1, name.size() - 2));
  }
  if (!thread.id.starts_with("0x")) return std::nullopt;
  return thread;
}

// `  File "PATH", line N in FUNC` (a path may hold quotes: the last `", line `).
std::optional<PythonFrame> frame_line(std::string_view line) {
  constexpr std::string_view prefix = "  File \"";
  if (!line.starts_with(prefix)) return std::nullopt;
  const auto rest = line.substr(prefix.size());
  const auto mark = rest.rfind("\", line ");
  if (mark == std::string_view::npos) return std::nullopt;
  PythonFrame frame;
  frame.file = std::string(rest.substr(0, mark));
  auto tail = rest.substr(mark + 8);
  const auto in = tail.find(" in ");
  if (in == std::string_view::npos) return std::nullopt;
  const auto number = tail.substr(0, in);
  if (number != "???") {
    int value = 0;
    for (char c : number) {
      if (c < '0' || c > '9' || value > 100000000) return std::nullopt;
      value = value * 10 + (c - '0');
    }
    if (!number.empty()) frame.line = value;
  }
  frame.function = std::string(tail.substr(in + 4));
  return frame;
}

// `  Binary file "PATH", at SYMBOL+0xOFF [0xADDR]` or `at +0xOFF [0xADDR]`.
std::optional<NativeFrame> native_line(std::string_view line) {
  constexpr std::string_view prefix = "  Binary file \"";
  if (!line.starts_with(prefix)) return std::nullopt;
  const auto rest = line.substr(prefix.size());
  const auto mark = rest.rfind("\", at ");
  if (mark == std::string_view::npos) return std::nullopt;
  NativeFrame frame;
  frame.object = std::string(rest.substr(0, mark));
  auto tail = rest.substr(mark + 6);
  const auto bracket = tail.find(" [0x");
  auto where = tail.substr(0, bracket);
  if (bracket != std::string_view::npos) {
    const std::string address(tail.substr(bracket + 4, tail.size() - bracket - 5));
    frame.address = std::strtoull(address.c_str(), nullptr, 16);
  }
  const auto plus = where.rfind("+0x");
  if (plus != std::string_view::npos) {
    frame.symbol = std::string(where.substr(0, plus));
    frame.offset = std::strtoull(std::string(where.substr(plus + 3)).c_str(), nullptr, 16);
  } else {
    frame.symbol = std::string(where);
  }
  return frame;
}

}  // namespace

std::optional<FaulthandlerDump> FaulthandlerReader::close() {
  auto done = std::move(dump_);
  dump_.reset();
  in_native_ = false;
  return done;
}

std::optional<FaulthandlerDump> FaulthandlerReader::feed(std::string_view raw, std::uint64_t line_number) {
  const auto line = trim_end(raw);
  // A new dump may begin anywhere in a line (a rank prefix, a NUL byte).
  if (const auto at = line.find(kFatal); at != std::string_view::npos) {
    auto finished = close();
    dump_ = FaulthandlerDump{};
    dump_->error = std::string(line.substr(at + kFatal.size()));
    dump_->signal = signal_of(dump_->error);
    dump_->first_line = line_number;
    return finished;
  }
  if (!dump_) return std::nullopt;
  if (line.empty()) return std::nullopt;  // blank lines separate the parts
  auto& threads = dump_->threads;
  if (auto thread = thread_header(line)) {
    in_native_ = false;
    if (threads.size() < kMaxThreads) threads.push_back(std::move(*thread));
    return std::nullopt;
  }
  if (line.starts_with("Current thread's C stack trace")) {
    in_native_ = true;
    return std::nullopt;
  }
  if (!threads.empty()) {
    auto& thread = threads.back();
    if (in_native_) {
      if (auto frame = native_line(line)) {
        if (thread.native.size() < kMaxFramesPerThread) thread.native.push_back(std::move(*frame));
        return std::nullopt;
      }
      if (line.starts_with("  <")) return std::nullopt;  // "<cannot get C stack ...>", "<truncated rest of calls>"
    }
    if (auto frame = frame_line(line)) {
      if (thread.frames.size() < kMaxFramesPerThread) thread.frames.push_back(std::move(*frame));
      return std::nullopt;
    }
    if (line == "  ...") {
      thread.truncated = true;
      return std::nullopt;
    }
    if (line == "  <no Python frame>") return std::nullopt;
  }
  if (line.starts_with("Extension modules: ")) {
    auto list = line.substr(19);
    if (const auto total = list.rfind(" (total: "); total != std::string_view::npos) list = list.substr(0, total);
    while (!list.empty() && dump_->extension_modules.size() < kMaxExtensionModules) {
      const auto comma = list.find(", ");
      dump_->extension_modules.emplace_back(list.substr(0, comma));
      list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 2);
    }
    return close();  // the last part of a dump
  }
  return close();  // any other line ends the dump
}

std::optional<FaulthandlerDump> FaulthandlerReader::finish() { return close(); }

void FaulthandlerReader::begin_requested(std::uint64_t line_number) {
  close();
  dump_ = FaulthandlerDump{};
  dump_->first_line = line_number;
}

std::optional<FaulthandlerDump> read_requested_dump(std::string_view text) {
  // Each request writes one block per thread ("Thread 0x..." or "Current
  // thread 0x..." and its frames), and requests append to one file: a
  // thread id seen again starts the next dump. Only the last is read.
  std::vector<std::string_view> lines;
  std::vector<std::string> ids;
  std::size_t last_start = std::string_view::npos;
  while (!text.empty()) {
    const auto end = text.find('\n');
    const auto line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (auto header = thread_header(trim_end(line))) {
      if (last_start == std::string_view::npos || std::find(ids.begin(), ids.end(), header->id) != ids.end()) {
        ids.clear();
        last_start = lines.size();
      }
      ids.push_back(header->id);
    }
    lines.push_back(line);
  }
  if (last_start == std::string_view::npos) return std::nullopt;
  FaulthandlerReader reader;
  reader.begin_requested(last_start + 1);
  std::optional<FaulthandlerDump> dump;
  for (std::size_t i = last_start; i < lines.size() && !dump; ++i) dump = reader.feed(lines[i], i + 1);
  if (!dump) dump = reader.finish();
  if (!dump || dump->threads.empty()) return std::nullopt;
  return dump;
}

std::vector<FaulthandlerDump> read_faulthandler_dumps(std::string_view text) {
  FaulthandlerReader reader;
  std::vector<FaulthandlerDump> dumps;
  std::uint64_t number = 0;
  while (!text.empty()) {
    const auto end = text.find('\n');
    const auto line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (auto dump = reader.feed(line, ++number)) dumps.push_back(std::move(*dump));
  }
  if (auto dump = reader.finish()) dumps.push_back(std::move(*dump));
  return dumps;
}

}  // namespace ftdiag::parse
