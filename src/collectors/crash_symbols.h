// Names the native frames of the crashes the probes recorded: each
// address becomes its function and file:line (inlined calls expanded, the
// innermost first) from the modules on this machine's disk, within a time
// budget per crash so a 1 GB library never stalls the report. Frames left
// unnamed keep their module and offset, and the crash says how many.
// Runs live (`ftdiag run`, before its verdict) and post-mortem.
#pragma once

#include "evidence/document.h"
#include "symbolize/module_symbols.h"
#include "symbolize/native_stack.h"

namespace ftdiag::collectors {

// Never throws.
void symbolize_crashes(evidence::EvidenceDocument& document, symbolize::ModuleSymbols& symbols);

// One crash's frames (exposed for tests).
void symbolize_crash(evidence::CrashEvidence& crash, symbolize::ModuleSymbols& symbols);

// Named native frames as evidence frames: each inlined call its own frame,
// before the function it was inlined into, all at the same address.
std::vector<evidence::StackFrame> evidence_frames(const std::vector<symbolize::NativeFrame>& named);

}  // namespace ftdiag::collectors
