// What an interpreter says about itself when asked — its version and
// sys.path — from a few lines of Python that import nothing but json, os
// and sys (never torch: importing it would load CUDA, take seconds, and may
// crash the very way the job does). Run with the job's environment, so
// PYTHONPATH, PYTHONHOME and a virtual environment count as they will. Its
// answer is parsed by parse/python_env/interpreter_report.h.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "base/fact.h"
#include "parse/python_env/interpreter_report.h"

namespace ftdiag::collect {

// The program's argv: {interpreter, "-B", "-c", script}. -B keeps the
// interpreter from writing bytecode; nothing else changes how it starts.
std::vector<std::string> interpreter_report_command(const std::string& interpreter);

struct InterpreterQuery {
  std::string command;  // the argv in words, shell-quoted, for the record
  Fact<parse::InterpreterReport> report = Missing{};
};

// Runs the interpreter (collect/helpers/helper_program.h) with `environment`
// (absent: ftdiag's own) and a deadline; at most 1 MiB of output is kept.
// A failure is Missing with what happened: not_present or
// permission_denied (could not start), timed_out, failed (killed by a
// signal, or exited non-zero; the detail ends with stderr's last line),
// unparseable (no report in the output).
InterpreterQuery ask_interpreter(const std::string& interpreter,
                                 const std::optional<std::vector<std::string>>& environment,
                                 std::chrono::milliseconds deadline);

}  // namespace ftdiag::collect
