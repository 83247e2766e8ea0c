// Must NOT compile: facts are drawn from the evidence model alone; the run
// folder on disk (writing and reading the journal) is the journal layer's.
#include "journal/journal_writer.h"
