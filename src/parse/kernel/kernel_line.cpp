// split_kernel_log and decode_kmsg_record: from text in any rendering to
// KernelLines. What a single line's prefix says is read by kernel_prefix.cpp
// and kernel_json_line.cpp; this file keeps what spans lines: continuation
// lines of multi-line records, dmesg -J's spread-out records, the journal
// host, line numbers.
#include <algorithm>
#include <cstring>
#include <ctime>
#include <string>

#include "parse/kernel/kernel_json_line.h"
#include "parse/kernel/kernel_log.h"
#include "parse/kernel/kernel_prefix.h"
#include "parse/kernel/kernel_stream.h"
#include "parse/kernel/kernel_text.h"

namespace ftdiag::parse {
namespace {

using detail::Rendering;

// Longer lines are cut: no kernel message comes near it (printk's limit is
// 1 KiB), so the rest is garbage or a paste gone wrong.
constexpr std::size_t max_line_bytes = 64 * 1024;

// /dev/kmsg escapes non-printable bytes and '\' as "\xNN".
std::string unescape_kmsg(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  for (std::size_t i = 0; i < message.size(); ++i) {
    if (message[i] == '\\' && i + 3 < message.size() && message[i + 1] == 'x') {
      auto high = text::hex_digit(message[i + 2]);
      auto low = text::hex_digit(message[i + 3]);
      if (high && low) {
        out.push_back(static_cast<char>(*high * 16 + *low));
        i += 3;
        continue;
      }
    }
    out.push_back(message[i]);
  }
  return out;
}

// A device property line after a /dev/kmsg record: " SUBSYSTEM=pci".
bool is_kmsg_property(std::string_view line) {
  if (!text::consume(line, " ")) return false;
  std::size_t i = 0;
  while (i < line.size() && ((line[i] >= 'A' && line[i] <= 'Z') || text::is_digit(line[i]) || line[i] == '_')) ++i;
  return i > 0 && i < line.size() && line[i] == '=';
}

int current_year() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  if (!localtime_r(&now, &local)) return 1970;
  return local.tm_year + 1900;
}

class LogSplitter {
 public:
  explicit LogSplitter(const KernelTextOptions& options) { context_.year = options.year.value_or(current_year()); }

  void feed(std::string_view line, std::uint64_t number) {
    if (line.size() > max_line_bytes) line = line.substr(0, max_line_bytes);
    if (read_json(line, number)) return;
    if (!line.empty() && text::is_blank(line.front()) && read_continuation(line, number)) return;
    detail::PrefixedLine prefixed = detail::read_prefix(line, context_);
    switch (prefixed.rendering) {
      case Rendering::kmsg:
        emit(unescape_kmsg(prefixed.message), prefixed.stamp, number);
        previous_ = Previous::kmsg;
        break;
      case Rendering::stamped:
        if (!prefixed.host.empty() && prefixed.host != known_host_) {
          known_host_ = std::string(prefixed.host);
          context_.known_host = known_host_;
        }
        emit(prefixed.message, prefixed.stamp, number);
        previous_stamp_ = std::move(prefixed.stamp);
        previous_ = Previous::stamped;
        break;
      case Rendering::userspace:
        previous_ = Previous::dropped;
        break;
      case Rendering::marker:
        previous_ = Previous::none;
        break;
      case Rendering::plain:
        emit(prefixed.message, {}, number);
        previous_ = Previous::plain;
        break;
    }
  }

  std::vector<KernelLine> take() {
    std::vector<KernelLine> out = std::move(lines_);
    lines_.clear();
    return out;
  }
  void reserve(std::size_t lines) { lines_.reserve(lines); }

 private:
  enum class Previous { none, plain, kmsg, stamped, dropped };

  bool read_json(std::string_view line, std::uint64_t number) {
    std::string_view trimmed = text::trim(line);
    detail::JsonRecord record;
    switch (detail::read_json_line(trimmed, pending_json_, record)) {
      case detail::JsonLine::not_json:
        return false;
      case detail::JsonLine::record:
        emit(record.message, record.stamp, number);
        break;
      case detail::JsonLine::userspace:
      case detail::JsonLine::structural:
      case detail::JsonLine::field:
        break;
    }
    previous_ = Previous::none;
    return true;
  }

  // An indented line without a stamp continues the record before it (dmesg
  // and journalctl indent the further lines of a multi-line record).
  bool read_continuation(std::string_view line, std::uint64_t number) {
    switch (previous_) {
      case Previous::kmsg:
        return is_kmsg_property(line);
      case Previous::stamped:
        if (starts_with_stamp(line)) return false;
        emit(text::trim_left(line), previous_stamp_, number);
        return true;
      case Previous::dropped:
        return true;
      case Previous::none:
      case Previous::plain:
        return false;
    }
    return false;
  }

  bool starts_with_stamp(std::string_view line) {
    detail::PrefixedLine prefixed = detail::read_prefix(text::trim_left(line), context_);
    return prefixed.rendering != Rendering::plain;
  }

  // A record's message may hold several lines (the v2 memcg stats block).
  void emit(std::string_view message, const KernelStamp& stamp, std::uint64_t number) {
    std::size_t start = 0;
    for (std::size_t i = 0; i < message.size(); ++i) {
      if (message[i] == '\n' || message[i] == '\r') {
        add(message.substr(start, i - start), stamp, number);
        start = i + 1;
      }
    }
    add(message.substr(start), stamp, number);
  }

  void add(std::string_view piece, const KernelStamp& stamp, std::uint64_t number) {
    KernelLine line{std::string(piece), stamp, number};
    for (char& c : line.message) {
      if (c == '\0') c = ' ';
    }
    if (text::trim(line.message).empty()) return;
    lines_.push_back(std::move(line));
  }

  detail::PrefixContext context_;
  std::string known_host_;
  detail::PendingDmesgRecord pending_json_;
  Previous previous_ = Previous::none;
  KernelStamp previous_stamp_;
  std::vector<KernelLine> lines_;
};

// One line of text (no "\n"): "\r" breaks a line too (progress bars,
// SageMaker's logs); CRLF is one break.
void feed_text_line(LogSplitter& splitter, std::string_view line, std::uint64_t number) {
  if (line.ends_with('\r')) line.remove_suffix(1);
  while (!line.empty()) {
    const char* cr = static_cast<const char*>(std::memchr(line.data(), '\r', line.size()));
    if (!cr) break;
    splitter.feed(line.substr(0, static_cast<std::size_t>(cr - line.data())), number);
    line.remove_prefix(static_cast<std::size_t>(cr - line.data()) + 1);
  }
  splitter.feed(line, number);
}

}  // namespace

std::vector<KernelLine> split_kernel_log(std::string_view text, const KernelTextOptions& options) {
  LogSplitter splitter(options);
  splitter.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  std::uint64_t number = 0;
  while (!text.empty()) {
    const char* newline = static_cast<const char*>(std::memchr(text.data(), '\n', text.size()));
    const std::size_t length = newline ? static_cast<std::size_t>(newline - text.data()) : text.size();
    std::string_view line = text.substr(0, length);
    text.remove_prefix(newline ? length + 1 : length);
    feed_text_line(splitter, line, ++number);
  }
  return splitter.take();
}

struct KernelTextSplitter::State {
  explicit State(const KernelTextOptions& options) : splitter(options) {}
  LogSplitter splitter;
};

KernelTextSplitter::KernelTextSplitter(const KernelTextOptions& options) : state_(std::make_unique<State>(options)) {}
KernelTextSplitter::~KernelTextSplitter() = default;

void KernelTextSplitter::feed(std::string_view line, std::uint64_t number) { feed_text_line(state_->splitter, line, number); }

std::vector<KernelLine> KernelTextSplitter::take() { return state_->splitter.take(); }

std::optional<KernelLine> decode_kmsg_record(std::string_view record) {
  // The " KEY=value" lines after the first are device properties.
  record = record.substr(0, record.find('\n'));
  if (record.ends_with('\r')) record.remove_suffix(1);
  KernelLine line;
  if (!detail::take_kmsg_header(record, line.stamp)) return std::nullopt;
  line.message = unescape_kmsg(record.substr(0, max_line_bytes));
  for (char& c : line.message) {
    if (c == '\0') c = ' ';
  }
  line.line_number = 1;
  return line;
}

}  // namespace ftdiag::parse
