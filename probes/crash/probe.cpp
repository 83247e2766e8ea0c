// libftdiag_crash.so: `ftdiag run` preloads it into the job (docs/probes.md).
// Everything that is not async-signal-safe happens here, at load: the run
// folder is read, libc's functions and libunwind are looked up, the main
// thread gets its alternate stack, and the handler is installed last.
#include "crash/alt_stack.h"
#include "crash/handler.h"
#include "crash/loader_environment.h"
#include "crash/record_file.h"
#include "crash/signal_chain.h"
#include "crash/thread_start.h"
#include "crash/unwind.h"

namespace ftdiag::crash {

namespace {

[[gnu::constructor]] void load_probe() {
  resolve_libc_signal_functions();
  resolve_libc_pthread_create();
  // Without a run folder there is nowhere to record, but the job must still
  // see its own handlers and die as it would: the probe still chains.
  if (init_record_file()) {
    init_unwinder();
    init_loader_environment();
  }
  init_alt_stacks();
  prepare_thread();
  install_crash_handler(crash_handler);
}

}  // namespace

}  // namespace ftdiag::crash
