#include "crash/unwind.h"

#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <libunwind.h>
#include <ucontext.h>

#include <type_traits>

#include "crash/registers.h"

// libunwind is opened with dlopen(RTLD_LOCAL) at load, never linked:
// - a missing library would otherwise stop every job process from starting
//   (a preloaded object's missing dependency is fatal to ld.so); here it only
//   costs the frames (the record keeps the faulting pc, `frames-end 1 failed`);
// - linked, its ~60 unversioned exports (_Unwind_RaiseException & co.) would
//   sit early in every job's global symbol scope, ahead of libgcc_s for any
//   reference without a symbol version. libstdc++'s own references are
//   versioned (GCC_3.0) and were seen to bind to libgcc_s regardless, but the
//   probe should change nothing in the job it does not have to.
// FTDIAG_LIBUNWIND_SONAME comes from probes/CMakeLists.txt.

namespace ftdiag::crash {

namespace {

// The handler's ucontext goes to unw_init_local2 as is: libunwind 1.6 says
// "On AArch64, we can directly use ucontext_t as the unwind context", and
// on x86_64 unw_tdep_context_t is ucontext_t too. A libunwind where it is
// not must not build.
static_assert(std::is_same_v<unw_context_t, ucontext_t>, "libunwind's context must be a ucontext_t");

#define FTDIAG_STRINGIFY_(x) #x
#define FTDIAG_STRINGIFY(x) FTDIAG_STRINGIFY_(x)

// The functions of libunwind's local unwinder this file uses. Their exported
// names carry the architecture (_ULx86_64_step): the header's macros give them.
struct Api {
  int (*init_local2)(unw_cursor_t*, unw_context_t*, int) = nullptr;
  int (*step)(unw_cursor_t*) = nullptr;
  int (*get_reg)(unw_cursor_t*, unw_regnum_t, unw_word_t*) = nullptr;
  int (*set_caching_policy)(unw_addr_space_t, unw_caching_policy_t) = nullptr;
  unw_addr_space_t* local_addr_space = nullptr;
};

Api g_api;
bool g_ready = false;

template <typename T>
bool load(void* library, const char* name, T& out) {
  out = reinterpret_cast<T>(::dlsym(library, name));
  return out != nullptr;
}

bool load_api(void* library, Api& api) {
  return load(library, FTDIAG_STRINGIFY(unw_init_local2), api.init_local2) &&
         load(library, FTDIAG_STRINGIFY(unw_step), api.step) &&
         load(library, FTDIAG_STRINGIFY(unw_get_reg), api.get_reg) &&
         load(library, FTDIAG_STRINGIFY(unw_set_caching_policy), api.set_caching_policy) &&
         load(library, FTDIAG_STRINGIFY(unw_local_addr_space), api.local_addr_space);
}

// Unwinds this (constructor) stack once, so that libunwind's one-time setup
// happens here and not inside a handler; getcontext(3) fills the context.
void warm_up() {
  ucontext_t context;
  if (::getcontext(&context) != 0) return;
  unw_cursor_t cursor;
  if (g_api.init_local2(&cursor, reinterpret_cast<unw_context_t*>(&context), 0) != 0) return;
  for (int i = 0; i < 4 && g_api.step(&cursor) > 0; ++i) {
  }
}

}  // namespace

bool init_unwinder() {
  void* library = ::dlopen(FTDIAG_LIBUNWIND_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!library || !load_api(library, g_api)) return false;
  g_api.set_caching_policy(*g_api.local_addr_space, UNW_CACHE_NONE);
  warm_up();
  g_ready = true;
  return true;
}

Unwound unwind(void* ucontext, std::uintptr_t* frames, std::size_t capacity) {
  Unwound result;
  if (capacity == 0) return result;
  unw_cursor_t cursor;
  if (!g_ready ||
      g_api.init_local2(&cursor, static_cast<unw_context_t*>(ucontext), UNW_INIT_SIGNAL_FRAME) != 0) {
    frames[0] = instruction_pointer(ucontext);  // at least where it happened
    result.count = 1;
    return result;
  }
  for (;;) {
    unw_word_t ip = 0;
    if (g_api.get_reg(&cursor, UNW_REG_IP, &ip) != 0) return result;
    if (result.count == capacity) {
      result.end = UnwindEnd::truncated;
      return result;
    }
    frames[result.count++] = ip;
    int stepped = g_api.step(&cursor);
    if (stepped == 0) {
      result.end = UnwindEnd::complete;
      return result;
    }
    if (stepped < 0) return result;
  }
}

}  // namespace ftdiag::crash
