/* deep_stack: a process that dies with a stack worth reading in its core.
 *
 *   deep_stack recurse DEPTH   descend() calls itself DEPTH times, then
 *                              crash_at_the_bottom() writes through NULL
 *   deep_stack threads N       N threads park in park_here() (blocked reading
 *                              a pipe); once all are started and the main
 *                              thread is out of pthread_create (a thread caught
 *                              inside clone3 cannot be unwound past it), one
 *                              more thread writes through NULL in
 *                              crash_in_worker(), while main waits to join it
 *
 * Built with -g -O0 so a stack of it names functions and lines. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Not static, not inlined at -O0: frames name these functions. */
int crash_at_the_bottom(volatile int* pointer) {
  *pointer = 7; /* the faulting line */
  return *pointer;
}

int descend(int depth, volatile int* pointer) {
  if (depth == 0) return crash_at_the_bottom(pointer);
  return descend(depth - 1, pointer) + 1; /* the recursive call */
}

static pthread_barrier_t all_started;
static int never_written[2];

void* park_here(void* unused) {
  (void)unused;
  pthread_barrier_wait(&all_started);
  char c;
  while (read(never_written[0], &c, 1) != 0) {
  }
  return NULL;
}

void* crash_in_worker(void* unused) {
  (void)unused;
  pthread_barrier_wait(&all_started);
  crash_at_the_bottom(NULL);
  return NULL;
}

static int threads(int count) {
  if (count < 0 || count > 256 || pipe(never_written) != 0) return 64;
  pthread_barrier_init(&all_started, NULL, (unsigned)count + 2);
  pthread_t ids[257];
  for (int i = 0; i < count; ++i) pthread_create(&ids[i], NULL, park_here, NULL);
  pthread_create(&ids[count], NULL, crash_in_worker, NULL);
  pthread_barrier_wait(&all_started);
  pthread_join(ids[count], NULL);
  return 70;
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "recurse") == 0) return descend(atoi(argv[2]), NULL);
  if (argc == 3 && strcmp(argv[1], "threads") == 0) return threads(atoi(argv[2]));
  fprintf(stderr, "usage: deep_stack recurse DEPTH | threads N\n");
  return 64;
}
