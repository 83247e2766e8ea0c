#include "crash/alt_stack.h"

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>

namespace ftdiag::crash {

namespace {

// initial-exec: the probe is loaded at startup, so its TLS is static and a
// handler reads it without __tls_get_addr (which may allocate on a thread's
// first access to a module's dynamic TLS).
[[gnu::tls_model("initial-exec")]] thread_local StackBounds t_bounds;

pthread_key_t g_teardown_key;
bool g_have_key = false;

// The mapping of one alternate stack: guard page, then the stack.
struct AltStack {
  void* base;
  std::size_t size;
};

std::size_t page_size() { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }

// Called by glibc at thread exit with the thread's mapping: disables the
// alternate stack if it is still ours, then unmaps it.
void tear_down(void* value) {
  char* base = static_cast<char*>(value);
  std::size_t guard = page_size();
  stack_t current {};
  if (::sigaltstack(nullptr, &current) == 0 && current.ss_sp == base + guard) {
    stack_t disable {};
    disable.ss_flags = SS_DISABLE;
    ::sigaltstack(&disable, nullptr);
  }
  ::munmap(base, guard + kAltStackSize);
}

bool has_alt_stack() {
  stack_t current {};
  return ::sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE);
}

void install_alt_stack() {
  std::size_t guard = page_size();
  void* mapping = ::mmap(nullptr, guard + kAltStackSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
                         -1, 0);
  if (mapping == MAP_FAILED) return;  // the handler runs on the thread's own stack then
  char* base = static_cast<char*>(mapping);
  ::mprotect(base, guard, PROT_NONE);
  stack_t stack {};
  stack.ss_sp = base + guard;
  stack.ss_size = kAltStackSize;
  if (::sigaltstack(&stack, nullptr) != 0) {
    ::munmap(mapping, guard + kAltStackSize);
    return;
  }
  // The main thread never exits through the key's destructor; its stack
  // lives as long as the process.
  if (g_have_key) ::pthread_setspecific(g_teardown_key, mapping);
}

void note_stack_bounds() {
  pthread_attr_t attr;
  if (::pthread_getattr_np(::pthread_self(), &attr) != 0) return;
  void* low = nullptr;
  std::size_t size = 0;
  if (::pthread_attr_getstack(&attr, &low, &size) == 0) {
    t_bounds.low = reinterpret_cast<std::uintptr_t>(low);
    t_bounds.high = t_bounds.low + size;
  }
  ::pthread_attr_destroy(&attr);
}

}  // namespace

void init_alt_stacks() { g_have_key = ::pthread_key_create(&g_teardown_key, tear_down) == 0; }

void prepare_thread() {
  note_stack_bounds();
  if (!has_alt_stack()) install_alt_stack();
}

StackBounds thread_stack_bounds() { return t_bounds; }

}  // namespace ftdiag::crash
