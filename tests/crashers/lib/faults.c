/* libcrashfaults.so: a fault inside a shared library, for crash_cases. A
 * record's first frame must then fall in this library's mapping, not in the
 * program's. Built with -g -O0 like the crashers. */
#include "faults.h"

int faults_write_through_null(volatile int* pointer) {
  *pointer = 7;
  return *pointer;
}
