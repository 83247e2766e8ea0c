// The relay process copies the job's output on, a copy to ftdiag first, and
// outlives the copy's reader; a consumer that goes away ends it.
#include "supervise/relay_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include <doctest/doctest.h>

using ftdiag::supervise::start_relay_process;

namespace {

struct Pipe {
  int read_end = -1;
  int write_end = -1;
  Pipe() {
    int ends[2];
    REQUIRE(::pipe2(ends, O_CLOEXEC) == 0);
    read_end = ends[0];
    write_end = ends[1];
  }
  ~Pipe() {
    close_read();
    close_write();
  }
  void close_read() {
    if (read_end >= 0) ::close(read_end);
    read_end = -1;
  }
  void close_write() {
    if (write_end >= 0) ::close(write_end);
    write_end = -1;
  }
};

std::string read_some(int fd, std::size_t size) {
  std::string text(size, '\0');
  std::size_t got = 0;
  while (got < size) {
    ssize_t n = ::read(fd, text.data() + got, size - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  return text;
}

int exit_code_of(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

TEST_CASE("relay process: copies to the destination and the tee, and goes on when the tee's reader is gone") {
  Pipe source, destination, tee;
  const pid_t relay = start_relay_process({source.read_end, destination.write_end, tee.write_end});
  REQUIRE(relay > 0);
  source.close_read();
  destination.close_write();
  tee.close_write();

  REQUIRE(::write(source.write_end, "hello\n", 6) == 6);
  CHECK(read_some(tee.read_end, 6) == "hello\n");
  CHECK(read_some(destination.read_end, 6) == "hello\n");

  tee.close_read();  // ftdiag ended, or was killed
  REQUIRE(::write(source.write_end, "after\n", 6) == 6);
  CHECK(read_some(destination.read_end, 6) == "after\n");

  source.close_write();  // the last writer is done: the relay ends
  CHECK(exit_code_of(relay) == 0);
  CHECK(read_some(destination.read_end, 1).empty());
}

TEST_CASE("relay process: when the consumer is gone it ends and closes the source, so the writer gets EPIPE") {
  Pipe source, destination, tee;
  const pid_t relay = start_relay_process({source.read_end, destination.write_end, tee.write_end});
  REQUIRE(relay > 0);
  source.close_read();
  destination.close_write();
  tee.close_write();
  destination.close_read();  // `| head -1` exited

  struct sigaction ignore {}, previous {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &previous);
  REQUIRE(::write(source.write_end, "x\n", 2) == 2);
  CHECK(exit_code_of(relay) == 0);
  errno = 0;
  CHECK(::write(source.write_end, "y\n", 2) == -1);
  CHECK(errno == EPIPE);
  ::sigaction(SIGPIPE, &previous, nullptr);
}
