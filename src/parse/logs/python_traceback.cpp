#include "parse/logs/python_traceback.h"

#include <charconv>
#include <optional>

namespace ftdiag::parse {

namespace {

constexpr std::string_view kHeader = "Traceback (most recent call last):";
constexpr std::string_view kFile = "File \"";

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

struct FileLine {
  std::string_view prefix;  // what came before the indentation: "[rank0]:", or empty
  TracebackFrame frame;
};

// `  File "/x/train.py", line 605, in training_step`, after any prefix; or at
// the start of the line, as a traceback pasted into an issue form often is
// (its indentation lost).
std::optional<FileLine> read_file_line(std::string_view text) {
  const auto at = text.find(kFile);
  if (at == std::string_view::npos || (at > 0 && text[at - 1] != ' ' && text[at - 1] != '\t')) return std::nullopt;
  std::string_view rest = text.substr(at + kFile.size());
  const auto quote = rest.find("\", line ");
  if (quote == std::string_view::npos) return std::nullopt;
  FileLine out;
  out.prefix = trimmed(text.substr(0, at));
  out.frame.file = std::string(rest.substr(0, quote));
  rest.remove_prefix(quote + 8);
  const auto [number_end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), out.frame.line);
  if (error != std::errc()) return std::nullopt;
  rest.remove_prefix(static_cast<std::size_t>(number_end - rest.data()));
  if (rest.substr(0, 5) != ", in ") return std::nullopt;
  out.frame.function = std::string(trimmed(rest.substr(5)));
  if (out.frame.function.empty()) return std::nullopt;
  return out;
}

// Python 3.11's markers under the code: only spaces, '^' and '~'.
bool is_caret_line(std::string_view code) {
  return !code.empty() && code.find_first_not_of(" ^~") == std::string_view::npos;
}

// The code Python printed under the frame at `index`: the next line, without
// the frame line's prefix, unless it is another frame or only carets.
std::string code_under(std::span<const std::string_view> lines, std::size_t index, std::size_t end, std::string_view prefix) {
  if (index + 1 >= end) return {};
  std::string_view next = lines[index + 1];
  if (read_file_line(next)) return {};
  if (!prefix.empty()) {
    const auto at = next.find(prefix);
    if (at == std::string_view::npos || !trimmed(next.substr(0, at)).empty()) return {};
    next.remove_prefix(at + prefix.size());
  }
  const auto code = trimmed(next);
  return is_caret_line(code) ? std::string() : std::string(code);
}

}  // namespace

std::vector<TracebackFrame> traceback_frames_above(std::span<const std::string_view> lines, std::size_t end) {
  std::vector<TracebackFrame> frames;
  if (end > lines.size()) return frames;
  std::size_t last_kept = end;  // the exception line, then each frame's line
  const std::size_t stop = end > kMaxTracebackLines ? end - kMaxTracebackLines : 0;
  for (std::size_t i = end; i-- > stop;) {
    if (lines[i].find(kHeader) != std::string_view::npos) break;
    if (last_kept - i > kMaxLinesPerFrame) break;
    auto file_line = read_file_line(lines[i]);
    if (!file_line) continue;
    file_line->frame.code = code_under(lines, i, last_kept, file_line->prefix);
    file_line->frame.index = i;
    frames.push_back(std::move(file_line->frame));
    last_kept = i;
  }
  return frames;
}

std::optional<RepeatingFrames> repeating_frames(std::span<const TracebackFrame> frames) {
  const auto same = [](const TracebackFrame& a, const TracebackFrame& b) {
    return a.file == b.file && a.line == b.line && a.function == b.function;
  };
  std::optional<RepeatingFrames> best;
  for (std::size_t period = 1; period <= kMaxRepeatingPeriod && 2 * period <= frames.size(); ++period) {
    std::size_t run = period;  // frames[0, run) repeat with this period
    while (run < frames.size() && same(frames[run], frames[run - period])) ++run;
    if (run < 2 * period || run < kMinRepeatingFrames) continue;
    if (!best || run > best->frames) best = RepeatingFrames{period, run};
  }
  return best;
}

namespace {

bool is_elision(std::string_view line) {
  const auto text = trimmed(line);
  return text == "..." || text == "\u2026" || text == "[...]" || text == "(...)" || text == "....";
}

}  // namespace

std::optional<RepeatingFrames> repeating_frames_across_elisions(std::span<const TracebackFrame> frames,
                                                                std::span<const std::string_view> lines) {
  if (auto whole = repeating_frames(frames)) return whole;
  // The frames from the innermost to the first elision above them.
  std::size_t inner = 0;
  for (; inner + 1 < frames.size(); ++inner) {
    bool elided = false;
    for (std::size_t i = frames[inner + 1].index + 1; i < frames[inner].index && i < lines.size(); ++i) {
      elided |= is_elision(lines[i]);
    }
    if (elided) break;
  }
  if (inner + 1 >= frames.size()) return std::nullopt;
  const auto outer = frames.subspan(inner + 1);
  const auto found = repeating_frames(outer);
  if (!found) return std::nullopt;
  const auto in_cycle = [&](const TracebackFrame& frame) {
    for (std::size_t k = 0; k < found->period; ++k) {
      if (outer[k].file == frame.file && outer[k].line == frame.line && outer[k].function == frame.function) return true;
    }
    return false;
  };
  for (std::size_t k = 0; k <= inner; ++k) {
    if (!in_cycle(frames[k])) return std::nullopt;
  }
  return RepeatingFrames{found->period, found->frames + inner + 1};
}

}  // namespace ftdiag::parse
