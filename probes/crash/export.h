// The probe is built with -fvisibility=hidden: only the functions it
// interposes in the job (sigaction, signal, pthread_create) are exported.
#pragma once

#define FTDIAG_CRASH_EXPORT __attribute__((visibility("default")))
