// The one redaction step of everything ftdiag prints or writes about a job
// (docs/redaction.md): applied to the evidence document once it is
// assembled, before the rules judge it and the renderers format it, so the
// facts, the findings, the report and the text all come from redacted
// values.
#pragma once

#include "base/fact.h"
#include "base/redact.h"
#include "evidence/document.h"

namespace ftdiag::evidence {

// Redaction::on: every secret the document holds is replaced by its marker
// (base/redact.h), through the document's JSON form, so every string is
// reached whatever field holds it: argv, environments, configs' settings,
// log lines and events, reported values, crash records, notes. The document
// then says `redaction: "on"`. Missing when the redacted form does not read
// back (never for a document of this ftdiag); the document is then unchanged
// and must not be shown.
//
// Redaction::off (--no-redact): nothing is replaced, and the document says
// "off" unless its values had all passed the step before ("on", a saved
// redacted document judged again).
Fact<bool> apply_redaction(EvidenceDocument& document, Redaction redaction);

}  // namespace ftdiag::evidence
