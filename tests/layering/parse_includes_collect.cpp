// Must NOT compile: the parsers take text and never read the machine; the
// readers in collect/ call them, not the other way round.
#include "collect/system_roots.h"
