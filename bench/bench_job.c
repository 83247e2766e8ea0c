/* The jobs the benchmarks supervise. Each mode does a fixed amount of work so
 * that a bare run and a run under ftdiag can be compared:
 *
 *   bench_job spin ITERATIONS
 *       CPU-bound: ITERATIONS rounds of an integer hash, nothing else.
 *   bench_job print LINES WIDTH
 *       LINES lines of WIDTH bytes (plus '\n') on stdout, fully buffered.
 *   bench_job sleep SECONDS
 *       Sleeps; almost no CPU of its own.
 *   bench_job churn CHILDREN
 *       Forks CHILDREN short-lived children one after the other, each exiting
 *       at once and reaped before the next: a job that runs many small
 *       commands (shell pipelines, compiler workers).
 *   bench_job maxrss OUTPUT COMMAND ARGS...
 *       Runs COMMAND, writes the ru_maxrss (KiB) wait4 reports for it to
 *       OUTPUT and exits as it did: the whole-life peak RSS of a process
 *       started by a parent far smaller than a Python driver, whose own
 *       peak exec would otherwise pass on.
 *   bench_job rusage OUTPUT COMMAND ARGS...
 *       Runs COMMAND and writes two numbers to OUTPUT: the CPU time (user +
 *       system, microseconds) wait4 reports for COMMAND and its reaped
 *       descendants, then this wrapper's own. Under `ftdiag run`, ftdiag's
 *       whole CPU time, every thread of it, is then its wait4 total minus
 *       these two.
 *   bench_job tree PROCESSES LINES WIDTH FIFO
 *       PROCESSES processes in all (this one and PROCESSES-1 children), each
 *       printing LINES lines of WIDTH bytes. Once every child has printed, the
 *       parent opens FIFO for reading and reads it to its end: the caller
 *       inspects ftdiag meanwhile, then releases the job by opening the FIFO
 *       for writing and closing it. The children then exit and the parent
 *       reaps them. FIFO "-" skips the wait; "sleep:SECONDS" sleeps instead.
 *   bench_job breathe PROCESSES SECONDS
 *       PROCESSES processes in all (this one and PROCESSES-1 children) whose
 *       resident memory moves all the time, for SECONDS: each steps through
 *       0, 0.75, 1.5 and 2.25 MiB of touched anonymous memory, one step every
 *       250 ms, back to 0 after the last (madvise DONTNEED). Two samples
 *       0.5 s apart see its RSS moved by 1.5 MiB: a busy tree, every process
 *       worth recording at every tick.
 *
 * Exit status 0 on success, 2 on bad arguments, 1 on a system call failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int usage(void) {
  fputs("usage: bench_job spin ITERATIONS | print LINES WIDTH | sleep SECONDS |"
        " churn CHILDREN |\n       maxrss OUTPUT COMMAND ARGS... | tree PROCESSES LINES WIDTH FIFO |"
        " breathe PROCESSES SECONDS |\n       rusage OUTPUT COMMAND ARGS...\n",
        stderr);
  return 2;
}

static long long number(const char* text) {
  char* end = NULL;
  errno = 0;
  long long value = strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < 0) {
    fprintf(stderr, "bench_job: not a non-negative integer: %s\n", text);
    exit(2);
  }
  return value;
}

static int spin(long long iterations) {
  /* splitmix64 steps; the result is printed so the loop cannot be elided. */
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (long long i = 0; i < iterations; ++i) {
    x += 0x9e3779b97f4a7c15ull;
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    x ^= z ^ (z >> 31);
  }
  printf("%016llx\n", (unsigned long long)x);
  return 0;
}

static void print_lines(long long lines, long long width, int id) {
  static char line[1 << 16];
  if (width > (long long)sizeof line - 64) width = (long long)sizeof line - 64;
  memset(line, 'x', (size_t)width);
  for (long long i = 0; i < lines; ++i) {
    /* A varying prefix, the way a training log's step counter varies. */
    char prefix[48];
    int length = snprintf(prefix, sizeof prefix, "p%d step %lld ", id, i);
    if (length > width) length = (int)width;
    memcpy(line, prefix, (size_t)length);
    fwrite(line, 1, (size_t)width, stdout);
    fputc('\n', stdout);
  }
  fflush(stdout);
}

static int sleep_seconds(long long seconds) {
  struct timespec t = {(time_t)seconds, 0};
  while (nanosleep(&t, &t) != 0 && errno == EINTR) {
  }
  return 0;
}

static int churn(long long children) {
  for (long long i = 0; i < children; ++i) {
    pid_t pid = fork();
    if (pid < 0) return perror("fork"), 1;
    if (pid == 0) _exit(0);
    int status;
    while (waitpid(pid, &status, 0) < 0) {
      if (errno != EINTR) return perror("waitpid"), 1;
    }
  }
  return 0;
}

static int maxrss(const char* output, char** argv) {
  pid_t pid = fork();
  if (pid < 0) return perror("fork"), 1;
  if (pid == 0) {
    execvp(argv[0], argv);
    perror("execvp");
    _exit(127);
  }
  int status = 0;
  struct rusage usage;
  while (wait4(pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) return perror("wait4"), 1;
  }
  FILE* out = fopen(output, "w");
  if (out == NULL) return perror("fopen"), 1;
  fprintf(out, "%ld\n", usage.ru_maxrss);
  fclose(out);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

static long long cpu_us(const struct rusage* usage) {
  return (long long)usage->ru_utime.tv_sec * 1000000 + usage->ru_utime.tv_usec +
         (long long)usage->ru_stime.tv_sec * 1000000 + usage->ru_stime.tv_usec;
}

static int rusage_of(const char* output, char** argv) {
  pid_t pid = fork();
  if (pid < 0) return perror("fork"), 1;
  if (pid == 0) {
    execvp(argv[0], argv);
    perror("execvp");
    _exit(127);
  }
  int status = 0;
  struct rusage child, self;
  while (wait4(pid, &status, 0, &child) < 0) {
    if (errno != EINTR) return perror("wait4"), 1;
  }
  getrusage(RUSAGE_SELF, &self);
  FILE* out = fopen(output, "w");
  if (out == NULL) return perror("fopen"), 1;
  fprintf(out, "%lld %lld\n", cpu_us(&child), cpu_us(&self));
  fclose(out);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

static int tree(long long processes, long long lines, long long width, const char* fifo) {
  int done[2], release[2];
  if (pipe(done) != 0 || pipe(release) != 0) return perror("pipe"), 1;
  setvbuf(stdout, NULL, _IOFBF, 1 << 16);
  for (long long i = 1; i < processes; ++i) {
    pid_t pid = fork();
    if (pid < 0) return perror("fork"), 1;
    if (pid == 0) {
      close(done[0]);
      close(release[1]);
      print_lines(lines, width, (int)i);
      char byte = 1;
      if (write(done[1], &byte, 1) != 1) _exit(1);
      close(done[1]);
      while (read(release[0], &byte, 1) != 0) { /* waits for the parent's close */
        if (errno != EINTR) break;
      }
      _exit(0);
    }
  }
  close(done[1]);
  close(release[0]);
  print_lines(lines, width, 0);
  char byte;
  for (long long ready = 1; ready < processes;) {
    ssize_t n = read(done[0], &byte, 1);
    if (n == 1) ++ready;
    else if (n == 0) break; /* a child died early; the count is then short */
    else if (errno != EINTR) return perror("read"), 1;
  }
  if (strncmp(fifo, "sleep:", 6) == 0) {
    sleep_seconds(number(fifo + 6));
  } else if (strcmp(fifo, "-") != 0) {
    int fd = open(fifo, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return perror("open fifo"), 1;
    char buffer[64];
    while (read(fd, buffer, sizeof buffer) > 0) {
    }
    close(fd);
  }
  close(release[1]);
  int status = 0, failed = 0;
  pid_t pid;
  while ((pid = wait(&status)) > 0) {
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failed = 1;
  }
  return failed;
}

/* One process's part of `breathe`: a sawtooth of resident memory until `end`. */
static int breathe_one(const struct timespec* end) {
  enum { kStep = 768 << 10, kLevels = 4, kPage = 4096 };
  char* region = mmap(NULL, (size_t)kStep * kLevels, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) return perror("mmap"), 1;
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  for (int level = 0;; level = (level + 1) % kLevels) {
    if (level == 0) {
      madvise(region, (size_t)kStep * kLevels, MADV_DONTNEED);
    } else {
      for (size_t offset = (size_t)(level - 1) * kStep; offset < (size_t)level * kStep; offset += kPage) {
        region[offset] = 1;
      }
    }
    next.tv_nsec += 250000000L;
    if (next.tv_nsec >= 1000000000L) {
      next.tv_nsec -= 1000000000L;
      next.tv_sec += 1;
    }
    if (next.tv_sec > end->tv_sec || (next.tv_sec == end->tv_sec && next.tv_nsec >= end->tv_nsec)) break;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR) {
    }
  }
  munmap(region, (size_t)kStep * kLevels);
  return 0;
}

static int breathe(long long processes, long long seconds) {
  struct timespec end;
  clock_gettime(CLOCK_MONOTONIC, &end);
  end.tv_sec += (time_t)seconds;
  for (long long i = 1; i < processes; ++i) {
    pid_t pid = fork();
    if (pid < 0) return perror("fork"), 1;
    if (pid == 0) _exit(breathe_one(&end));
  }
  int failed = breathe_one(&end);
  int status = 0;
  while (wait(&status) > 0) {
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failed = 1;
  }
  return failed;
}

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const char* mode = argv[1];
  if (strcmp(mode, "spin") == 0 && argc == 3) return spin(number(argv[2]));
  if (strcmp(mode, "print") == 0 && argc == 4) {
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    print_lines(number(argv[2]), number(argv[3]), 0);
    return 0;
  }
  if (strcmp(mode, "sleep") == 0 && argc == 3) return sleep_seconds(number(argv[2]));
  if (strcmp(mode, "maxrss") == 0 && argc >= 4) return maxrss(argv[2], argv + 3);
  if (strcmp(mode, "rusage") == 0 && argc >= 4) return rusage_of(argv[2], argv + 3);
  if (strcmp(mode, "churn") == 0 && argc == 3) return churn(number(argv[2]));
  if (strcmp(mode, "tree") == 0 && argc == 6) {
    long long processes = number(argv[2]);
    if (processes < 1) return usage();
    return tree(processes, number(argv[3]), number(argv[4]), argv[5]);
  }
  if (strcmp(mode, "breathe") == 0 && argc == 4) {
    long long processes = number(argv[2]);
    if (processes < 1) return usage();
    return breathe(processes, number(argv[3]));
  }
  return usage();
}
