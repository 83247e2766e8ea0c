/* crash_cases: real crashes for the crash probe's tests (probes/crash/,
 * tests/integration/test_crash_probe.cpp). Each mode dies at once; none sleeps.
 *
 *   crash_cases lib-segv         a NULL write inside libcrashfaults.so
 *   crash_cases thread-overflow  a runaway recursion on a second thread: SIGSEGV in its guard page
 *   crash_cases abort            abort()
 *   crash_cases bus              touch a page of a file truncated under it (prints "page 0x...")
 *   crash_cases fpe              an integer division by zero
 *   crash_cases threads-segv     eight threads write through NULL at once (after a barrier)
 *   crash_cases sent-segv        raise(SIGSEGV): a fault signal that was sent, not a fault
 *   crash_cases own-handler      installs a SIGSEGV handler after load (printing what it replaced);
 *                                it reports whether the crash record exists, restores SIG_DFL
 *                                and returns; then a NULL write
 *   crash_cases handler-mallocs  installs a SIGSEGV handler that calls malloc, then a NULL write
 *
 * Built with -g -O0 and never sanitized (tests/CMakeLists.txt). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/faults.h"

static int usage(void) {
  fprintf(stderr, "usage: crash_cases lib-segv | thread-overflow | abort | bus | fpe | threads-segv | sent-segv | "
                  "own-handler | handler-mallocs\n");
  return 64;
}

static void say(const char* text) { write(STDERR_FILENO, text, strlen(text)); }

/* Not static, not inlined at -O0: each call keeps a frame of its own. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winfinite-recursion"
int recurse_forever(volatile char* previous) {
  volatile char frame[512];
  frame[0] = previous ? previous[0] + 1 : 0;
  return recurse_forever(frame) + frame[1];
}
#pragma GCC diagnostic pop

static void* overflow_thread(void* unused) {
  (void)unused;
  return (void*)(long)recurse_forever(NULL);
}

static int overflow_on_a_thread(void) {
  pthread_t thread;
  if (pthread_create(&thread, NULL, overflow_thread, NULL) != 0) return 70;
  pthread_join(thread, NULL);
  say("crash_cases: the thread came back\n");
  return 70;
}

static int bus_error(void) {
  char path[] = "/tmp/crash-cases-bus-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0 || ftruncate(fd, 4096) != 0) return 70;
  unlink(path);
  volatile char* page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (page == MAP_FAILED || ftruncate(fd, 0) != 0) return 70;
  printf("page %p\n", (void*)page);
  fflush(stdout);
  page[0] = 1;
  return 70;
}

static pthread_barrier_t all_started;

static void* null_write_thread(void* unused) {
  (void)unused;
  pthread_barrier_wait(&all_started);
  return (void*)(long)faults_write_through_null(NULL);
}

static int segv_on_eight_threads(void) {
  enum { kThreads = 8 };
  pthread_t threads[kThreads];
  pthread_barrier_init(&all_started, NULL, kThreads);
  for (int i = 0; i < kThreads; ++i) {
    if (pthread_create(&threads[i], NULL, null_write_thread, NULL) != 0) return 70;
  }
  for (int i = 0; i < kThreads; ++i) pthread_join(threads[i], NULL);
  return 70;
}

int divide(volatile int numerator, volatile int denominator) { return numerator / denominator; }

/* The record's path, made before the crash: the handler may not allocate. */
static char record_path[4096];

static void own_handler(int signo, siginfo_t* info, void* context) {
  (void)info;
  (void)context;
  say(access(record_path, F_OK) == 0 ? "own handler ran; the record exists\n"
                                     : "own handler ran; no record yet\n");
  struct sigaction reset;
  memset(&reset, 0, sizeof reset);
  reset.sa_handler = SIG_DFL;
  sigaction(signo, &reset, NULL);
}

static void allocating_handler(int signo) {
  free(malloc(64));
  signal(signo, SIG_DFL);
}

static int install_segv_handler(int allocating) {
  const char* dir = getenv("FTDIAG_RUN_DIR");
  snprintf(record_path, sizeof record_path, "%s/crash.%d.txt", dir ? dir : "", getpid());
  struct sigaction action, previous;
  memset(&action, 0, sizeof action);
  sigemptyset(&action.sa_mask);
  if (allocating) {
    action.sa_handler = allocating_handler;
  } else {
    action.sa_sigaction = own_handler;
    action.sa_flags = SA_SIGINFO;
  }
  if (sigaction(SIGSEGV, &action, &previous) != 0) return 70;
  printf("previous SIGSEGV action: %s flags=%#x\n",
         previous.sa_handler == SIG_DFL ? "default" : previous.sa_handler == SIG_IGN ? "ignore" : "a handler",
         (unsigned)previous.sa_flags);
  fflush(stdout);
  return faults_write_through_null(NULL);
}

int main(int argc, char** argv) {
  if (argc != 2) return usage();
  const char* mode = argv[1];
  if (strcmp(mode, "lib-segv") == 0) return faults_write_through_null(NULL);
  if (strcmp(mode, "thread-overflow") == 0) return overflow_on_a_thread();
  if (strcmp(mode, "abort") == 0) abort();
  if (strcmp(mode, "bus") == 0) return bus_error();
  if (strcmp(mode, "fpe") == 0) return divide(1, 0);
  if (strcmp(mode, "threads-segv") == 0) return segv_on_eight_threads();
  if (strcmp(mode, "sent-segv") == 0) return raise(SIGSEGV) == 0 ? 70 : 71;
  if (strcmp(mode, "own-handler") == 0) return install_segv_handler(0);
  if (strcmp(mode, "handler-mallocs") == 0) return install_segv_handler(1);
  return usage();
}
