#include "parse/logs/signal_text.h"

#include <array>
#include <charconv>

namespace ftdiag::parse {

namespace {

struct SignalSpelling {
  int number;
  std::string_view abbreviation;  // without "SIG"
  std::string_view description;   // glibc's strsignal(3)
};

// glibc's descriptions (string/siglist.h); SIGIOT and SIGPOLL are the same
// numbers as SIGABRT and SIGIO.
constexpr std::array<SignalSpelling, 33> kSignals{{
    {1, "HUP", "Hangup"},
    {2, "INT", "Interrupt"},
    {3, "QUIT", "Quit"},
    {4, "ILL", "Illegal instruction"},
    {5, "TRAP", "Trace/breakpoint trap"},
    {6, "ABRT", "Aborted"},
    {6, "IOT", "Aborted"},
    {7, "BUS", "Bus error"},
    {8, "FPE", "Floating point exception"},
    {9, "KILL", "Killed"},
    {10, "USR1", "User defined signal 1"},
    {11, "SEGV", "Segmentation fault"},
    {12, "USR2", "User defined signal 2"},
    {13, "PIPE", "Broken pipe"},
    {14, "ALRM", "Alarm clock"},
    {15, "TERM", "Terminated"},
    {16, "STKFLT", "Stack fault"},
    {17, "CHLD", "Child exited"},
    {18, "CONT", "Continued"},
    {19, "STOP", "Stopped (signal)"},
    {20, "TSTP", "Stopped"},
    {21, "TTIN", "Stopped (tty input)"},
    {22, "TTOU", "Stopped (tty output)"},
    {23, "URG", "Urgent I/O condition"},
    {24, "XCPU", "CPU time limit exceeded"},
    {25, "XFSZ", "File size limit exceeded"},
    {26, "VTALRM", "Virtual timer expired"},
    {27, "PROF", "Profiling timer expired"},
    {28, "WINCH", "Window changed"},
    {29, "IO", "I/O possible"},
    {29, "POLL", "I/O possible"},
    {30, "PWR", "Power failure"},
    {31, "SYS", "Bad system call"},
}};

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// Case-insensitive, and '-' in the text reads as ' ': PyTorch's worker
// handler prints "floating-point exception".
bool same_words(std::string_view text, std::string_view spelling) {
  if (text.size() != spelling.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char a = text[i] == '-' ? ' ' : lower(text[i]);
    if (a != lower(spelling[i])) return false;
  }
  return true;
}

bool starts_with_word(std::string_view text, std::string_view word) {
  return text.size() >= word.size() && same_words(text.substr(0, word.size()), word);
}

std::optional<int> from_number(std::string_view text) {
  int number = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (number < 1 || number > 64) return std::nullopt;
  return number;
}

}  // namespace

std::optional<int> signal_number_from_text(std::string_view text) {
  if (text.empty()) return std::nullopt;
  if (text.front() >= '0' && text.front() <= '9') return from_number(text);
  if (starts_with_word(text, "Signals.")) text.remove_prefix(8);
  std::string_view abbreviation = text;
  if (starts_with_word(abbreviation, "SIG")) abbreviation.remove_prefix(3);
  for (const auto& signal : kSignals) {
    if (same_words(abbreviation, signal.abbreviation) || same_words(text, signal.description)) return signal.number;
  }
  return std::nullopt;
}

}  // namespace ftdiag::parse
