/* libmalloc_guard.so: preloaded beside the crash probe by the tests, it ends
 * the process with exit status 99 when malloc & co. are called on an
 * alternate signal stack, that is, from inside a signal handler installed with
 * SA_ONSTACK (the probe's, and the job's handlers it chains to). sigaltstack
 * is a system call, safe anywhere. It forwards to glibc's __libc_* functions,
 * which need no dlsym (dlsym itself allocates). */
#include <signal.h>
#include <stddef.h>
#include <unistd.h>

void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* pointer, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void __libc_free(void* pointer);

enum { kAllocatedInHandler = 99 };

static void check_not_in_handler(void) {
  stack_t stack;
  if (sigaltstack(NULL, &stack) == 0 && (stack.ss_flags & SS_ONSTACK)) {
    static const char message[] = "malloc_guard: allocation inside a signal handler\n";
    write(STDERR_FILENO, message, sizeof message - 1);
    _exit(kAllocatedInHandler);
  }
}

void* malloc(size_t size) {
  check_not_in_handler();
  return __libc_malloc(size);
}

void* calloc(size_t count, size_t size) {
  check_not_in_handler();
  return __libc_calloc(count, size);
}

void* realloc(void* pointer, size_t size) {
  check_not_in_handler();
  return __libc_realloc(pointer, size);
}

void* memalign(size_t alignment, size_t size) {
  check_not_in_handler();
  return __libc_memalign(alignment, size);
}

void* aligned_alloc(size_t alignment, size_t size) {
  check_not_in_handler();
  return __libc_memalign(alignment, size);
}

int posix_memalign(void** out, size_t alignment, size_t size) {
  check_not_in_handler();
  void* pointer = __libc_memalign(alignment, size);
  if (!pointer) return 12; /* ENOMEM */
  *out = pointer;
  return 0;
}

void free(void* pointer) {
  check_not_in_handler();
  __libc_free(pointer);
}
