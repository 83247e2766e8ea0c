/* launcher: a small torchrun-like launcher for the integration tests.
 *
 *   launcher [--hold-zombies FIFO] N CMD [ARGS...]
 *
 * Starts N workers running CMD ARGS (LOCAL_RANK=0..N-1 in their environment),
 * prints "launcher: worker I pid P" for each, and reaps them itself, so the
 * workers are grandchildren of whoever runs the launcher. When a worker fails
 * (non-zero exit or a signal) it prints a ChildFailedError block the way
 * torch.distributed.elastic does, sends SIGTERM to the other workers, reaps
 * them and exits 1. Exits 0 when every worker succeeded.
 *
 * --hold-zombies FIFO: a worker that ended is left a zombie (waitid WNOWAIT)
 * until a line can be read from FIFO, so a test can watch the zombie. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_WORKERS 64

static pid_t workers[MAX_WORKERS];
static int reaped[MAX_WORKERS];
static int worker_count;

static int rank_of(pid_t pid) {
  for (int i = 0; i < worker_count; ++i) {
    if (workers[i] == pid) return i;
  }
  return -1;
}

static void wait_for_line(const char* fifo) {
  int fd = open(fifo, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    perror("launcher: open fifo");
    return;
  }
  char c;
  while (read(fd, &c, 1) == 1 && c != '\n') {
  }
  close(fd);
}

/* Reaps one worker; returns its pid and wait status, or -1 when none is left. */
static pid_t reap_one(const char* hold_fifo, int* status) {
  if (hold_fifo) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_ALL, 0, &info, WEXITED | WNOWAIT) != 0) return -1;
    printf("launcher: worker pid %d ended; holding its zombie\n", info.si_pid);
    fflush(stdout);
    wait_for_line(hold_fifo);
    return waitpid(info.si_pid, status, 0);
  }
  pid_t pid;
  do {
    pid = waitpid(-1, status, 0);
  } while (pid < 0 && errno == EINTR);
  return pid;
}

static void report_failure(pid_t pid, int status) {
  int exitcode = WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
  int rank = rank_of(pid);
  fprintf(stderr,
          "launcher: ChildFailedError:\n"
          "  worker      : %d (local_rank: %d)\n"
          "  exitcode    : %d (pid: %d)\n"
          "  error_file  : <N/A>\n",
          rank, rank, exitcode, pid);
  fflush(stderr);
}

static pid_t start_worker(int rank, char** argv) {
  pid_t pid = fork();
  if (pid == 0) {
    char value[16];
    snprintf(value, sizeof value, "%d", rank);
    setenv("LOCAL_RANK", value, 1);
    execvp(argv[0], argv);
    perror("launcher: exec");
    _exit(127);
  }
  return pid;
}

int main(int argc, char** argv) {
  const char* hold_fifo = NULL;
  int arg = 1;
  if (arg + 1 < argc && strcmp(argv[arg], "--hold-zombies") == 0) {
    hold_fifo = argv[arg + 1];
    arg += 2;
  }
  if (arg + 1 >= argc) {
    fprintf(stderr, "usage: launcher [--hold-zombies FIFO] N CMD [ARGS...]\n");
    return 64;
  }
  worker_count = atoi(argv[arg]);
  if (worker_count < 1 || worker_count > MAX_WORKERS) return 64;
  for (int rank = 0; rank < worker_count; ++rank) {
    workers[rank] = start_worker(rank, argv + arg + 1);
    if (workers[rank] < 0) {
      perror("launcher: fork");
      return 1;
    }
    printf("launcher: worker %d pid %d\n", rank, workers[rank]);
    fflush(stdout);
  }
  int running = worker_count;
  int failed = 0;
  while (running > 0) {
    int status = 0;
    pid_t pid = reap_one(hold_fifo, &status);
    if (pid < 0) break;
    --running;
    if (rank_of(pid) >= 0) reaped[rank_of(pid)] = 1;
    if (failed || (WIFEXITED(status) && WEXITSTATUS(status) == 0)) continue;
    failed = 1;
    report_failure(pid, status);
    for (int i = 0; i < worker_count; ++i) {
      if (!reaped[i]) kill(workers[i], SIGTERM);
    }
  }
  return failed ? 1 : 0;
}
