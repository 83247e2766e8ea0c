// The interposed pthread_create: every thread the job starts runs
// prepare_thread() (alt_stack.h) before its own start routine.
#pragma once

namespace ftdiag::crash {

// Looks up libc's pthread_create (dlsym RTLD_NEXT). Not async-signal-safe;
// call at load.
void resolve_libc_pthread_create();

}  // namespace ftdiag::crash
