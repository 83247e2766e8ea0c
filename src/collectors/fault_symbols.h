// Names the code of the faults the kernel logged: "segfault at 0 ... in
// die[127d,...]" becomes crash_by_null_dereference at die.c:73 when the
// module is on disk (with DWARF: file and line; without: its symbol table's
// name). The module is found from the faulting process's command line, else
// in the system's library folders. Runs live (`ftdiag run`, before its
// verdict) and post-mortem, after every collector ran (cli/diagnosis.cpp).
#pragma once

#include "evidence/document.h"
#include "symbolize/module_symbols.h"

namespace ftdiag::collectors {

// Adds "function", "source" ("file:line") and "module_path" to each fault
// event of the document whose module could be read. Never throws.
void symbolize_kernel_faults(evidence::EvidenceDocument& document, symbolize::ModuleSymbols& symbols);


}  // namespace ftdiag::collectors
