#include "cli/redaction_option.h"

#include <cstdio>

#include "evidence/redact_document.h"

namespace ftdiag::cli {

void add_no_redact_flag(CLI::App& command, Redaction& redaction) {
  command.add_flag_callback("--no-redact", [&redaction] { redaction = Redaction::off; },
                            "Keep secrets (tokens, keys, passwords) as read instead of replacing them by markers; "
                            "what is written or printed then says redaction was off (docs/redaction.md)");
}

bool redact_for_output(evidence::EvidenceDocument& document, Redaction redaction, const char* command) {
  auto applied = evidence::apply_redaction(document, redaction);
  if (applied) return true;
  std::fprintf(stderr, "ftdiag %s: %s\n", command, applied.missing().detail.c_str());
  return false;
}

std::string printable(const std::string& text, Redaction redaction) {
  if (redaction == Redaction::on) return redact_text(text);
  return "ftdiag: redaction is off (--no-redact): secrets are shown as read\n" + text;
}

}  // namespace ftdiag::cli
