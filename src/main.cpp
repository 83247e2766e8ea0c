#include <fcntl.h>
#include <unistd.h>

#include "cli/app.h"

namespace {

// Started with stdin, stdout or stderr closed (`ftdiag run ... >&-`, as some
// cron setups and daemons do), the first file ftdiag opens would get that
// number: the journal would become "stdout" and the job's output would be
// written into it. /dev/null holds the numbers instead, before anything else
// is opened.
void fill_closed_standard_descriptors() {
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1) continue;
    // open() takes the lowest free number, which is this one.
    if (::open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY) != fd) ::_exit(125);
  }
}

}  // namespace

int main(int argc, char** argv) {
  fill_closed_standard_descriptors();
  return ftdiag::cli::run_app(argc, argv);
}
