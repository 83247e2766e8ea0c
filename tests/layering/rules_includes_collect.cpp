// Must NOT compile: rules judge recorded evidence and never see the readers
// of /proc (tests/CMakeLists.txt, layering_*).
#include "collect/host/proc_stat.h"
