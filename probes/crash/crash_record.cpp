#include "crash/crash_record.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "crash/alt_stack.h"
#include "crash/loader_environment.h"
#include "crash/record_writer.h"
#include "crash/registers.h"
#include "crash/unwind.h"

namespace ftdiag::crash {

namespace {

constexpr int kFormatVersion = 1;
// Deep enough for any real stack short of a runaway recursion, whose
// innermost frames are the ones that matter.
constexpr std::size_t kMaxFrames = 256;

void write_signal(RecordWriter& out, const siginfo_t* info) {
  out.text("signal ").dec_signed(info->si_signo).newline();
  out.text("code ").dec_signed(info->si_code).newline();
  out.text("address ").hex(reinterpret_cast<std::uintptr_t>(info->si_addr)).newline();
}

void write_thread(RecordWriter& out) {
  out.text("pid ").dec(static_cast<std::uint64_t>(::getpid())).newline();
  out.text("tid ").dec(static_cast<std::uint64_t>(::gettid())).newline();
  char name[17] = {};  // PR_GET_NAME: up to 16 bytes with the NUL
  if (::prctl(PR_GET_NAME, name, 0, 0, 0) == 0) {
    for (char& c : name) {
      if (c == '\n') c = '?';  // one field per line, whatever the job named it
    }
    out.text("thread ").text(name).newline();
  }
  struct timespec now {};
  if (::clock_gettime(CLOCK_REALTIME, &now) == 0) {
    out.text("time ").dec(static_cast<std::uint64_t>(now.tv_sec)).text(".");
    out.dec_padded(static_cast<std::uint64_t>(now.tv_nsec / 1000), 6).newline();
  }
  StackBounds stack = thread_stack_bounds();
  if (stack.high != 0) out.text("stack ").hex(stack.low).text(" ").hex(stack.high).newline();
}

void write_registers(RecordWriter& out, const void* ucontext) {
  NamedRegister registers[kMaxRegisters];
  int count = read_registers(ucontext, registers);
  for (int i = 0; i < count; ++i) out.text("register ").text(registers[i].name).text(" ").hex(registers[i].value).newline();
}

const char* describe(UnwindEnd end) {
  switch (end) {
    case UnwindEnd::complete: return "complete";
    case UnwindEnd::truncated: return "truncated";
    case UnwindEnd::failed: break;
  }
  return "failed";
}

void write_frames(RecordWriter& out, void* ucontext) {
  std::uintptr_t frames[kMaxFrames];
  Unwound unwound = unwind(ucontext, frames, kMaxFrames);
  for (std::size_t i = 0; i < unwound.count; ++i) out.text("frame ").hex(frames[i]).newline();
  out.text("frames-end ").dec(unwound.count).text(" ").text(describe(unwound.end)).newline();
}

// /proc/self/maps as read, between `maps` and `maps-end`.
void write_maps(RecordWriter& out) {
  out.text("maps").newline();
  int fd = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  char chunk[1024];
  char last = '\n';
  for (ssize_t n; fd >= 0 && ((n = ::read(fd, chunk, sizeof chunk)) > 0 || (n < 0 && errno == EINTR));) {
    if (n <= 0) continue;
    out.bytes(chunk, static_cast<std::size_t>(n));
    last = chunk[n - 1];
  }
  if (fd >= 0) ::close(fd);
  if (last != '\n') out.newline();
  out.text("maps-end").newline();
}

}  // namespace

void write_crash_record(int fd, const siginfo_t* info, void* ucontext) {
  RecordWriter out(fd);
  out.text("ftdiag-crash ").dec(kFormatVersion).newline();
  write_signal(out, info);
  write_thread(out);
  write_registers(out, ucontext);
  write_loader_environment(out);
  // What is known so far goes out before the unwinder runs, the riskiest part.
  out.flush();
  write_frames(out, ucontext);
  out.flush();
  write_maps(out);
  out.text("end").newline();
  out.flush();
}

}  // namespace ftdiag::crash
