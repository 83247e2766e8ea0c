// What a script's first bytes say about the program that runs it. Pure
// functions over the head of a file (its first few KiB).
//
// Launchers such as deepspeed, torchrun, accelerate and llamafactory-cli are
// scripts pip wrote, and their first line names the Python they run with:
//
//   #!/opt/conda/envs/train/bin/python3.11
//   #!/usr/bin/env python3
//
// When that path is too long for the kernel (or holds a space) pip writes a
// shell script that re-executes itself with Python instead:
//
//   #!/bin/sh
//   '''exec' "/very/long/path/bin/python" "$0" "$@"
//   ' '''
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ftdiag::parse {

struct Shebang {
  std::string program;   // "/usr/bin/env", "/usr/bin/python3"
  // The rest of the line, trimmed. Linux passes it as one argument, spaces
  // and all: "python3", "-S python3 -u", or empty.
  std::string argument;

  bool operator==(const Shebang&) const = default;
};

// The `#!` line as Linux reads it (binfmt_script: spaces or tabs after `#!`
// are skipped, the program ends at the first space or tab, the rest is one
// argument). A '\r' ends the line too: a CRLF script does not run, but its
// intent is still read. nullopt when the text does not start with `#!`.
std::optional<Shebang> parse_shebang(std::string_view head);

// The program of pip's `'''exec' PROGRAM "$0" "$@"` line (PROGRAM in double
// quotes or bare), when one of the first five lines is one.
std::optional<std::string> parse_exec_line(std::string_view head);

}  // namespace ftdiag::parse
