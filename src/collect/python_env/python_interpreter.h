// Which Python a training command will run with, found from the command's
// words and the files they name — before the job runs, without running it.
//
//   python3 train.py               -> python3 on PATH ("the command")
//   env -S python3 -u train.py     -> the same, after env's prefix
//   deepspeed train.py             -> the shebang of deepspeed on PATH
//   torchrun … (pip's long-path script) -> its '''exec' line
//   bash -c "…", sh run.sh         -> not known: PATH's python3, then python
//   ftdiag … --python PATH          -> PATH itself, always
//
// The path is kept as found, never resolved through symbolic links: a
// virtual environment's bin/python is a link to the base interpreter, and
// only through the link's own path does Python find the environment.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/fact.h"

namespace ftdiag::collect {

struct InterpreterSearch {
  std::vector<std::string> command;                // the job's argv; may be empty
  std::optional<std::string> explicit_interpreter;  // --python: a path, or a name looked up on PATH
  std::string search_path;                         // the job's PATH
};

struct FoundInterpreter {
  std::string path;
  // "--python", "the command", "the shebang of /usr/local/bin/deepspeed",
  // "the exec line of /x/bin/torchrun", "PATH"
  std::string found_by;
};

struct InterpreterResolution {
  Fact<FoundInterpreter> interpreter = Missing{};
  // Why the command did not say and PATH was used ("the command runs a shell").
  std::vector<std::string> problems;
};

// An explicit interpreter that does not exist is Missing (not_present):
// the user named it, so no other is substituted. Otherwise a command that
// does not name a Python falls back to PATH with a problem saying why; no
// python3 or python on PATH either is Missing (not_present). Reads at most
// 4 KiB of the script the command names.
InterpreterResolution resolve_python_interpreter(const InterpreterSearch& search);

// Where execvp would find name: itself when it holds a '/', else the first
// executable regular file of that name in search_path's directories (an
// empty entry is the current directory). nullopt when there is none.
std::optional<std::string> find_executable(std::string_view name, std::string_view search_path);

}  // namespace ftdiag::collect
