/* die: a job that ends the way it is told to, for the integration tests.
 *
 *   die exit N            exit(N)
 *   die signal NAME       kill itself with SIGNAME (KILL, TERM, SEGV, ...)
 *   die segv              a real NULL dereference in crash_by_null_dereference()
 *   die gpf               a real general protection fault: a read through a non-canonical
 *                         address (x86-64), in crash_by_general_protection()
 *   die abort             abort()
 *   die bus               a real SIGBUS: touch a mapped page of a file truncated under it
 *   die hang [FIFO]       handle SIGTERM/SIGINT/SIGUSR1/SIGUSR2/SIGHUP, print "ready"
 *                         (and write it to FIFO), print "got SIGxxx" for each; SIGTERM and
 *                         SIGINT end it with exit 0
 *   die await FIFO MODE.. print "waiting pid=P", block until a line can be read from FIFO,
 *                         then do MODE.. (any of the above)
 *   die tty [N]           report isatty(0/1/2) and tcgetattr(0), then exit(N)
 *   die lines             a few lines on stdout and stderr, interleaved
 *   die readline          read one line from stdin, print "read: LINE"
 *   die binary N          N bytes of every value on stdout and N/2 on stderr, no newline
 *
 * Built with -g -O0 so a stack of it names functions and lines. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <termios.h>
#include <unistd.h>

static int usage(void) {
  fprintf(stderr, "usage: die exit N | signal NAME | segv | gpf | abort | bus | hang [FIFO] | "
                  "await FIFO MODE... | tty [N] | lines | readline | binary N\n");
  return 64;
}

static int run_mode(int argc, char** argv);

static int write_all(int fd, const void* data, size_t size) {
  const char* p = data;
  while (size > 0) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    p += n;
    size -= (size_t)n;
  }
  return 0;
}

static int die_by_signal(const char* name) {
  int sig = 0;
  for (int s = 1; s < NSIG; ++s) {
    const char* abbrev = sigabbrev_np(s);
    if (abbrev && strcmp(abbrev, name) == 0) sig = s;
  }
  if (sig == 0) {
    fprintf(stderr, "die: unknown signal %s\n", name);
    return 64;
  }
  signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  kill(getpid(), sig);
  fprintf(stderr, "die: still alive after SIG%s\n", name);
  return 70;
}

/* Not static and not inlined at -O0: a symbolized stack names this function. */
int crash_by_null_dereference(volatile int* pointer) {
  *pointer = 42;
  return *pointer;
}

/* A non-canonical address faults with #GP, not a page fault: the kernel logs
 * "traps: die[PID] general protection fault". */
int crash_by_general_protection(void) {
  volatile int* pointer = (volatile int*)0x8000000000000000ULL;
  return *pointer;
}

static int die_by_bus_error(void) {
  char path[] = "/tmp/die-bus-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0 || ftruncate(fd, 4096) != 0) {
    perror("die: mkstemp/ftruncate");
    return 70;
  }
  unlink(path);
  volatile char* page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (page == MAP_FAILED) {
    perror("die: mmap");
    return 70;
  }
  if (ftruncate(fd, 0) != 0) return 70;
  page[0] = 1; /* beyond the end of the file now: SIGBUS */
  fprintf(stderr, "die: no SIGBUS\n");
  return 70;
}

static volatile sig_atomic_t last_signal;

static void remember_signal(int sig) { last_signal = sig; }

static int hang(const char* fifo) {
  int handled[] = {SIGTERM, SIGINT, SIGUSR1, SIGUSR2, SIGHUP};
  sigset_t blocked, waiting;
  sigemptyset(&blocked);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = remember_signal;
  for (size_t i = 0; i < sizeof handled / sizeof handled[0]; ++i) {
    sigaction(handled[i], &action, NULL);
    sigaddset(&blocked, handled[i]);
  }
  /* Blocked outside sigsuspend, so no signal slips between the check and the wait. */
  sigprocmask(SIG_BLOCK, &blocked, &waiting);
  printf("ready pid=%d\n", getpid());
  fflush(stdout);
  if (fifo) {
    int fd = open(fifo, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write_all(fd, "ready\n", 6) != 0) {
      perror("die: ready fifo");
      return 70;
    }
    close(fd);
  }
  for (;;) {
    sigsuspend(&waiting);
    int sig = last_signal;
    printf("got SIG%s\n", sigabbrev_np(sig));
    fflush(stdout);
    if (sig == SIGTERM || sig == SIGINT) return 0;
  }
}

static int await(int argc, char** argv) {
  printf("waiting pid=%d\n", getpid());
  fflush(stdout);
  int fd = open(argv[0], O_RDONLY | O_CLOEXEC); /* blocks until the test opens it to write */
  if (fd < 0) {
    perror("die: open fifo");
    return 70;
  }
  char c;
  ssize_t n;
  while ((n = read(fd, &c, 1)) == 1 && c != '\n') {
  }
  close(fd);
  if (n < 0) return 70;
  return run_mode(argc - 1, argv + 1);
}

static int report_terminal(int code) {
  struct termios mode;
  int has_mode = tcgetattr(STDIN_FILENO, &mode) == 0;
  printf("tty stdin=%d stdout=%d stderr=%d tcgetattr=%d\n", isatty(STDIN_FILENO), isatty(STDOUT_FILENO),
         isatty(STDERR_FILENO), has_mode);
  fflush(stdout);
  return code;
}

static int print_lines(void) {
  const char* lines[][2] = {{"1", "first line on stdout\n"}, {"2", "first line on stderr\n"},
                            {"1", "second line on stdout\n"}, {"2", "second line on stderr\n"},
                            {"1", "last line on stdout\n"}};
  for (size_t i = 0; i < sizeof lines / sizeof lines[0]; ++i) {
    int fd = lines[i][0][0] == '1' ? STDOUT_FILENO : STDERR_FILENO;
    if (write_all(fd, lines[i][1], strlen(lines[i][1])) != 0) return 70;
  }
  return 0;
}

static int read_line(void) {
  char line[256];
  if (!fgets(line, sizeof line, stdin)) return 1;
  line[strcspn(line, "\r\n")] = 0;
  printf("read: %s\n", line);
  return 0;
}

/* The same generator lives in tests/integration/test_passthrough.cpp: the first
 * 256 bytes are 0..255 in order, then xorshift32 bytes. */
static int write_pattern(int fd, size_t size, uint32_t seed) {
  char buffer[65536];
  uint32_t state = seed;
  size_t done = 0;
  while (done < size) {
    size_t chunk = size - done < sizeof buffer ? size - done : sizeof buffer;
    for (size_t i = 0; i < chunk; ++i) {
      size_t at = done + i;
      if (at < 256) {
        buffer[i] = (char)at;
        continue;
      }
      state ^= state << 13;
      state ^= state >> 17;
      state ^= state << 5;
      buffer[i] = (char)(state >> 24);
    }
    if (write_all(fd, buffer, chunk) != 0) return 70;
    done += chunk;
  }
  return 0;
}

static int run_mode(int argc, char** argv) {
  if (argc < 1) return usage();
  const char* mode = argv[0];
  if (strcmp(mode, "exit") == 0 && argc == 2) return atoi(argv[1]);
  if (strcmp(mode, "signal") == 0 && argc == 2) return die_by_signal(argv[1]);
  if (strcmp(mode, "segv") == 0) return crash_by_null_dereference(NULL);
  if (strcmp(mode, "gpf") == 0) return crash_by_general_protection();
  if (strcmp(mode, "abort") == 0) abort();
  if (strcmp(mode, "bus") == 0) return die_by_bus_error();
  if (strcmp(mode, "hang") == 0) return hang(argc > 1 ? argv[1] : NULL);
  if (strcmp(mode, "await") == 0 && argc >= 3) return await(argc - 1, argv + 1);
  if (strcmp(mode, "tty") == 0) return report_terminal(argc > 1 ? atoi(argv[1]) : 0);
  if (strcmp(mode, "lines") == 0) return print_lines();
  if (strcmp(mode, "readline") == 0) return read_line();
  if (strcmp(mode, "binary") == 0 && argc == 2) {
    size_t size = strtoull(argv[1], NULL, 10);
    if (write_pattern(STDOUT_FILENO, size, 0x9e3779b9u) != 0) return 70;
    return write_pattern(STDERR_FILENO, size / 2, 0x7f4a7c15u);
  }
  return usage();
}

int main(int argc, char** argv) { return run_mode(argc - 1, argv + 1); }
