// `--no-redact` and the redaction of what a command prints, shared by run,
// analyze, judge and preflight (docs/redaction.md).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "base/redact.h"
#include "evidence/document.h"

namespace ftdiag::cli {

// Registers --no-redact on the command: `redaction` becomes Redaction::off.
void add_no_redact_flag(CLI::App& command, Redaction& redaction);

// The evidence document passes the redaction step (evidence/redact_document.h)
// before anything is judged or printed. False, with the reason on stderr,
// when it could not: the command must then print nothing of the document.
bool redact_for_output(evidence::EvidenceDocument& document, Redaction redaction, const char* command);

// Text a command prints: passed through the redaction step once more, for
// the words a renderer adds to the redacted evidence (paths the user named);
// with Redaction::off, headed by a line that says so, so a reader of a
// pasted report knows secrets may be in it.
std::string printable(const std::string& text, Redaction redaction);

}  // namespace ftdiag::cli
