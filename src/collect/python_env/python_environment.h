// The Python installation a training command will use, read before (or
// beside) the job: which interpreter, its sys.path, the packages that
// decide how the job runs with what they recorded about their builds, their
// native libraries' CUDA and torch dependencies, and LD_LIBRARY_PATH.
// docs/environment.md says what is read and how.
//
// Only the interpreter is run, with a deadline, to print its sys.path;
// everything else is read from files, bounded. Nothing is imported.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "model/environment.h"

namespace ftdiag::collect {

struct PythonEnvironmentRequest {
  std::vector<std::string> command;         // the job's argv; may be empty
  std::optional<std::string> interpreter;   // --python: overrides the command
  // The job's environment, "NAME=value" each: its PATH finds the
  // interpreter, its PYTHONPATH and the rest shape sys.path, its
  // LD_LIBRARY_PATH is recorded. Absent: ftdiag's own.
  std::optional<std::vector<std::string>> environment;
  std::chrono::milliseconds deadline{10000};  // for the interpreter's answer
};

// Never fails as a whole: `read` is true when the interpreter answered, else
// Missing with the reason (no interpreter found, it could not start, crashed,
// timed out, printed garbage), and whatever could still be read (the
// interpreter's path, LD_LIBRARY_PATH) is filled. Problems are in words.
model::PythonEnvironment read_python_environment(const PythonEnvironmentRequest& request);

}  // namespace ftdiag::collect
