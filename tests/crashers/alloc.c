/* alloc: grows its anonymous memory until something kills it.
 *
 *   alloc [STEP_MIB [DELAY_MS [MAX_MIB]]]     defaults: 4 MiB, 20 ms, 4096 MiB
 *
 * Every DELAY_MS it maps STEP_MIB more and writes every page, so the memory is
 * really charged (to its cgroup) and a sampler sees it climb. Prints
 * "alloc: N MiB" after each step. Reaching MAX_MIB without being killed is a
 * failure of the setup: it prints why and exits 3. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static void pause_ms(long ms) {
  struct timespec delay = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&delay, &delay) != 0) {
  }
}

int main(int argc, char** argv) {
  long step_mib = argc > 1 ? atol(argv[1]) : 4;
  long delay_ms = argc > 2 ? atol(argv[2]) : 20;
  long max_mib = argc > 3 ? atol(argv[3]) : 4096;
  if (step_mib <= 0 || delay_ms < 0 || max_mib <= 0) {
    fprintf(stderr, "usage: alloc [STEP_MIB [DELAY_MS [MAX_MIB]]]\n");
    return 64;
  }
  const size_t step = (size_t)step_mib << 20;
  const long page = sysconf(_SC_PAGESIZE);
  long total_mib = 0;
  while (total_mib < max_mib) {
    char* block = mmap(NULL, step, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (block == MAP_FAILED) {
      perror("alloc: mmap");
      return 2;
    }
    for (size_t at = 0; at < step; at += (size_t)page) block[at] = (char)(at >> 12 | 1);
    total_mib += step_mib;
    printf("alloc: %ld MiB\n", total_mib);
    fflush(stdout);
    pause_ms(delay_ms);
  }
  fprintf(stderr, "alloc: reached %ld MiB and nothing killed me\n", total_mib);
  return 3;
}
