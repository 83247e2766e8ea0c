#include "crash/thread_start.h"

#include <dlfcn.h>
#include <pthread.h>

#include <cerrno>
#include <cstdlib>

#include "crash/alt_stack.h"
#include "crash/export.h"

namespace ftdiag::crash {

namespace {

using StartRoutine = void* (*)(void*);
using PthreadCreateFn = int (*)(pthread_t*, const pthread_attr_t*, StartRoutine, void*);

PthreadCreateFn g_libc_pthread_create = nullptr;

// What the trampoline needs to start the job's thread; allocated by the
// creating thread, freed by the new one.
struct Start {
  StartRoutine routine;
  void* argument;
};

void* trampoline(void* raw) {
  Start start = *static_cast<Start*>(raw);
  std::free(raw);
  prepare_thread();
  // The alternate stack is taken down by the key's destructor (alt_stack.cpp),
  // which also runs when the thread ends by pthread_exit or cancellation.
  return start.routine(start.argument);
}

PthreadCreateFn libc_pthread_create() {
  if (!g_libc_pthread_create) resolve_libc_pthread_create();
  return g_libc_pthread_create;
}

}  // namespace

void resolve_libc_pthread_create() {
  g_libc_pthread_create = reinterpret_cast<PthreadCreateFn>(::dlsym(RTLD_NEXT, "pthread_create"));
}

int create_thread(pthread_t* thread, const pthread_attr_t* attr, StartRoutine routine, void* argument) {
  auto real = libc_pthread_create();
  if (!real) return EAGAIN;
  auto* start = static_cast<Start*>(std::malloc(sizeof(Start)));
  if (!start) return real(thread, attr, routine, argument);  // unprepared, but the job's thread starts
  *start = Start{routine, argument};
  int error = real(thread, attr, trampoline, start);
  if (error != 0) std::free(start);
  return error;
}

}  // namespace ftdiag::crash

extern "C" FTDIAG_CRASH_EXPORT int pthread_create(pthread_t* __restrict thread, const pthread_attr_t* __restrict attr,
                                                  void* (*routine)(void*), void* __restrict argument) noexcept {
  return ftdiag::crash::create_thread(thread, attr, routine, argument);
}
