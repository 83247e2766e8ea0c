// --verbose and --color for the commands that print a verdict, and the text
// style they give on a stream: its width (the terminal's, else $COLUMNS,
// else 80), colour (auto: a terminal, NO_COLOR unset, TERM not dumb) and
// whether the locale reads UTF-8.
#pragma once

#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "report/text_layout.h"

namespace ftdiag::cli {

struct TextOptions {
  bool verbose = false;
  std::string colour = "auto";  // auto, always, never
};

void add_text_options(CLI::App& command, TextOptions& options);

report::TextStyle text_style_for(std::FILE* stream, const TextOptions& options);

}  // namespace ftdiag::cli
