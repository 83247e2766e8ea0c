// Must NOT compile: the evidence model sits below the collectors that fill it.
#include "collectors/collector.h"
