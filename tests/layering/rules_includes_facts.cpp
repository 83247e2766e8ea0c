// Must compile: rules may use the facts layer and, through it, the evidence
// model. The control for the two files that must not compile.
#include "evidence/document.h"
#include "facts/fact_set.h"
