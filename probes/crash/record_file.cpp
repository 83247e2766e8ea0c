#include "crash/record_file.h"

#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace ftdiag::crash {

namespace {

constexpr char kPrefix[] = "/crash.";
constexpr char kSuffix[] = ".txt";
constexpr std::size_t kPidDigits = 10;

// "$FTDIAG_RUN_DIR/crash." at load; the pid and ".txt" follow at the crash.
char g_path[PATH_MAX];
std::size_t g_prefix_length = 0;

}  // namespace

bool init_record_file() {
  const char* dir = std::getenv("FTDIAG_RUN_DIR");
  if (!dir || dir[0] == '\0') return false;
  std::size_t length = std::strlen(dir);
  if (length + sizeof kPrefix + kPidDigits + sizeof kSuffix > sizeof g_path) return false;
  std::memcpy(g_path, dir, length);
  std::memcpy(g_path + length, kPrefix, sizeof kPrefix - 1);
  g_prefix_length = length + sizeof kPrefix - 1;
  return true;
}

int create_record_file() {
  if (g_prefix_length == 0) return -1;
  // Formatted in a copy: two processes sharing this memory (vfork) must not
  // race on g_path's tail.
  char path[PATH_MAX];
  std::memcpy(path, g_path, g_prefix_length);
  char digits[kPidDigits];
  std::size_t count = 0;
  for (unsigned pid = static_cast<unsigned>(::getpid()); count == 0 || pid != 0; pid /= 10) digits[count++] = '0' + pid % 10;
  std::size_t at = g_prefix_length;
  while (count > 0) path[at++] = digits[--count];
  std::memcpy(path + at, kSuffix, sizeof kSuffix);  // with its NUL
  return ::open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
}

}  // namespace ftdiag::crash
