// The progress line of `ftdiag analyze` (collectors/read_progress.h): its
// wording, drawn on a terminal and erased at the end, never written to a pipe.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <pty.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "collectors/read_progress.h"

using ftdiag::collectors::read_progress_line;
using ftdiag::collectors::ReadProgress;
using namespace std::chrono_literals;

namespace {

std::string read_available(int fd) {
  std::string out;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace

TEST_CASE("read progress: the line says how much of how much, and how fast") {
  CHECK(read_progress_line(3'200'000'000, 10'000'000'000, 2.9) == "ftdiag: reading logs 3.2 GB of 10.0 GB (1.1 GB/s)");
  CHECK(read_progress_line(120'000'000, 800'000'000, 1.0) == "ftdiag: reading logs 120 MB of 800 MB (120 MB/s)");
  CHECK(read_progress_line(0, 800'000'000, 0) == "ftdiag: reading logs 0 MB of 800 MB (0 MB/s)");
}

TEST_CASE("read progress: drawn in place on a terminal, erased at the end") {
  int master = -1, terminal = -1;
  REQUIRE(::openpty(&master, &terminal, nullptr, nullptr, nullptr) == 0);
  {
    ReadProgress progress(2'000'000'000, terminal, {.first_after = 0ms, .every = 5ms});
    CHECK(progress.reporting());
    progress.bytes_read() += 1'000'000'000;
    std::this_thread::sleep_for(50ms);
  }
  ::close(terminal);
  const std::string shown = read_available(master);
  ::close(master);
  CHECK(shown.find("\rftdiag: reading logs 1.0 GB of 2.0 GB (") != std::string::npos);
  CHECK(shown.size() >= 4);
  CHECK(shown.substr(shown.size() - 4) == "\r\x1b[K");
}

TEST_CASE("read progress: nothing on a pipe, nor for nothing to read, nor for a short read") {
  int pipe_fds[2];
  REQUIRE(::pipe2(pipe_fds, O_NONBLOCK) == 0);
  {
    ReadProgress progress(2'000'000'000, pipe_fds[1], {.first_after = 0ms, .every = 5ms});
    CHECK_FALSE(progress.reporting());
    progress.bytes_read() += 1'000'000'000;
    std::this_thread::sleep_for(20ms);
  }
  CHECK(read_available(pipe_fds[0]).empty());
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);

  int master = -1, terminal = -1;
  REQUIRE(::openpty(&master, &terminal, nullptr, nullptr, nullptr) == 0);
  CHECK_FALSE(ReadProgress(0, terminal).reporting());
  { ReadProgress quick(2'000'000'000, terminal); }  // ends before its first second
  ::close(terminal);
  CHECK(read_available(master).empty());
  ::close(master);
}
