#include "cli/text_options.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string_view>

namespace ftdiag::cli {

namespace {

constexpr std::size_t kNarrowest = 40;
constexpr std::size_t kWidest = 160;  // prose wider than this is hard to read, whatever the terminal

std::size_t width_of(int fd) {
  winsize size{};
  if (::isatty(fd) && ::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    return std::clamp<std::size_t>(size.ws_col, kNarrowest, kWidest);
  }
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long value = std::strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && value > 0) return std::clamp<std::size_t>(static_cast<std::size_t>(value), kNarrowest, kWidest);
  }
  return 80;
}

bool locale_reads_utf8() {
  // The first of LC_ALL, LC_CTYPE, LANG that is set decides, as setlocale would.
  for (const char* name : {"LC_ALL", "LC_CTYPE", "LANG"}) {
    const char* value = std::getenv(name);
    if (!value || !*value) continue;
    std::string lower(value);
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return lower.find("utf-8") != std::string::npos || lower.find("utf8") != std::string::npos;
  }
  return false;
}

bool colour_wanted(int fd, std::string_view choice) {
  if (choice == "always") return true;
  if (choice == "never") return false;
  const char* no_colour = std::getenv("NO_COLOR");
  if (no_colour && *no_colour) return false;  // https://no-color.org
  const char* term = std::getenv("TERM");
  if (term && std::string_view(term) == "dumb") return false;
  return ::isatty(fd);
}

}  // namespace

void add_text_options(CLI::App& command, TextOptions& options) {
  command.add_flag("-v,--verbose", options.verbose,
                   "Also print the evidence with where each fact came from, every run and death, and the other causes considered");
  command.add_option("--color", options.colour, "Colour the text: auto (on a terminal, unless NO_COLOR is set), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->type_name("WHEN");
}

report::TextStyle text_style_for(std::FILE* stream, const TextOptions& options) {
  const int fd = ::fileno(stream);
  return {.width = width_of(fd), .colour = colour_wanted(fd, options.colour), .unicode = locale_reads_utf8(), .verbose = options.verbose};
}

}  // namespace ftdiag::cli
