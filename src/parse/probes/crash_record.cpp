#include "parse/probes/crash_record.h"

#include <charconv>
#include <cstdlib>

namespace ftdiag::parse {

namespace {

constexpr std::string_view kMagic = "ftdiag-crash ";
constexpr std::size_t kMaxProblems = 20;
constexpr std::size_t kMaxFrames = 4096;
constexpr std::size_t kMaxEnvironment = 16;
constexpr std::size_t kMaxEnvironmentValue = 8192;

template <class Int>
std::optional<Int> parse_integer(std::string_view text) {
  int base = 10;
  if (text.starts_with("0x")) {
    text.remove_prefix(2);
    base = 16;
  }
  Int value{};
  if (text.empty()) return std::nullopt;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc{} || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> parse_time(std::string_view text) {
  // "1796139991.643115": from_chars for doubles is in libstdc++ 11+.
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::pair<std::string_view, std::string_view> split_key(std::string_view line) {
  const auto space = line.find(' ');
  if (space == std::string_view::npos) return {line, {}};
  return {line.substr(0, space), line.substr(space + 1)};
}

class Reader {
 public:
  explicit Reader(CrashRecord& record) : record_(record) {}

  void line(std::string_view text) {
    if (in_maps_) {
      if (text == "maps-end") {
        in_maps_ = false;
        record_.maps_whole = true;
      } else if (auto entry = parse_maps_line(text)) {
        record_.maps.push_back(std::move(*entry));
      }
      return;
    }
    const auto [key, value] = split_key(text);
    if (key == "signal") {
      set(record_.signal, parse_integer<int>(value), text);
    } else if (key == "code") {
      set(record_.code, parse_integer<int>(value), text);
    } else if (key == "address") {
      set(record_.address, parse_integer<std::uint64_t>(value), text);
    } else if (key == "pid") {
      set(record_.pid, parse_integer<int>(value), text);
    } else if (key == "tid") {
      set(record_.tid, parse_integer<int>(value), text);
    } else if (key == "thread") {
      record_.thread = std::string(value);
    } else if (key == "time") {
      set(record_.time, parse_time(value), text);
    } else if (key == "stack") {
      const auto [low, high] = split_key(value);
      auto l = parse_integer<std::uint64_t>(low);
      auto h = parse_integer<std::uint64_t>(high);
      if (l && h && *l < *h) {
        record_.stack = std::pair{*l, *h};
      } else {
        problem(text);
      }
    } else if (key == "register") {
      const auto [name, number] = split_key(value);
      if (auto v = parse_integer<std::uint64_t>(number); v && !name.empty()) {
        record_.registers.emplace_back(std::string(name), *v);
      } else {
        problem(text);
      }
    } else if (key == "env") {
      const auto [name, text] = split_key(value);
      if (name.empty() || record_.environment.size() >= kMaxEnvironment) {
        problem(text);
      } else {
        record_.environment.emplace_back(std::string(name), std::string(text.substr(0, kMaxEnvironmentValue)));
      }
    } else if (key == "frame") {
      auto v = parse_integer<std::uint64_t>(value);
      if (!v) {
        problem(text);
      } else if (record_.frames.size() < kMaxFrames) {
        record_.frames.push_back(*v);
      }
    } else if (key == "frames-end") {
      const auto [count, status] = split_key(value);
      record_.frames_declared = parse_integer<std::uint64_t>(count);
      record_.unwind = std::string(status);
    } else if (key == "maps") {
      in_maps_ = true;
    } else if (key == "end") {
      record_.whole = true;
    } else if (!text.empty()) {
      problem(text);  // a key of a later version, or damage
    }
  }

  void finish() {
    if (in_maps_) record_.problems.push_back("the memory map is cut short (no \"maps-end\")");
    if (!record_.whole) record_.problems.push_back("the record is cut short (no \"end\" line)");
    if (record_.frames_declared && *record_.frames_declared != record_.frames.size()) {
      record_.problems.push_back("frames-end says " + std::to_string(*record_.frames_declared) + " frames, the record has " +
                                 std::to_string(record_.frames.size()));
    }
  }

 private:
  template <class T>
  void set(std::optional<T>& field, std::optional<T> value, std::string_view text) {
    if (value) {
      field = value;
    } else {
      problem(text);
    }
  }
  void problem(std::string_view text) {
    if (record_.problems.size() >= kMaxProblems) return;
    std::string shown(text.substr(0, 80));
    for (char& c : shown) {
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
    }
    record_.problems.push_back("unreadable line: \"" + shown + "\"");
  }

  CrashRecord& record_;
  bool in_maps_ = false;
};

}  // namespace

std::optional<std::uint64_t> CrashRecord::register_value(std::string_view name) const {
  for (const auto& [n, v] : registers) {
    if (n == name) return v;
  }
  return std::nullopt;
}

std::optional<CrashRecord> parse_crash_record(std::string_view text, std::string* why_not) {
  const auto first_end = text.find('\n');
  const std::string_view first = text.substr(0, first_end);
  if (!first.starts_with(kMagic)) {
    if (why_not) *why_not = "not a crash record (no \"ftdiag-crash\" first line)";
    return std::nullopt;
  }
  const auto version = parse_integer<int>(first.substr(kMagic.size()));
  if (!version || *version != kCrashRecordVersion) {
    if (why_not) *why_not = "a crash record of a version this ftdiag does not read: \"" + std::string(first.substr(0, 40)) + "\"";
    return std::nullopt;
  }
  CrashRecord record;
  record.version = *version;
  Reader reader(record);
  text.remove_prefix(first_end == std::string_view::npos ? text.size() : first_end + 1);
  while (!text.empty()) {
    const auto end = text.find('\n');
    if (end == std::string_view::npos) {
      // A last line without its newline was cut mid-write: only "end" is
      // whole without one (it is the record's last word).
      if (text == "end") reader.line(text);
      break;
    }
    reader.line(text.substr(0, end));
    text.remove_prefix(end + 1);
  }
  reader.finish();
  return record;
}

}  // namespace ftdiag::parse
