#pragma once

/* Writes through `pointer` (NULL: a SIGSEGV inside this library). */
int faults_write_through_null(volatile int* pointer);
