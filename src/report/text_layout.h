// How text reports meet a terminal: the width to wrap to, whether to colour,
// whether the terminal reads UTF-8, and how much to say. Wrapping breaks
// only between words, so a pid, a path or a function name is never cut in
// the middle; a word longer than the line gets a line of its own.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ftdiag::report {

struct TextStyle {
  std::size_t width = 80;
  bool colour = false;   // ANSI bold and colours (a terminal, and NO_COLOR unset)
  bool unicode = true;   // the sparkline's blocks and the death's mark; ASCII otherwise
  bool verbose = false;  // the evidence with its sources, every process, other causes considered
  std::size_t rows = 24;  // a screen: the compact verdict, its proof and its fix fit in it
};

// The columns a string takes: UTF-8 characters, less ANSI escapes.
std::size_t display_width(std::string_view text);

// `text` broken into lines of at most `width` columns at spaces: the first
// line after `first`, the others after `rest`. Each line ends with '\n'.
// Newlines in the text start a new line (after `rest`).
std::string wrap(std::string_view text, std::size_t width, std::string_view first, std::string_view rest);

// Text safe in HTML, SVG and Markdown: < > & " ' as entities.
std::string html_escape(std::string_view text);

enum class Tone { strong, bad, warn, good, quiet };

// The text in the tone's ANSI style when the style colours; as is otherwise.
std::string toned(const TextStyle& style, Tone tone, std::string_view text);

}  // namespace ftdiag::report
