#include "supervise/sources/received_signals.h"

#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>

#include "base/clock.h"
#include "base/unique_fd.h"
#include "supervise/process_names.h"

namespace ftdiag::supervise {

namespace {

// A sender's command line is recorded up to this many bytes.
constexpr std::size_t kMaxSenderCommandBytes = 500;

class ReceivedSignals final : public LiveSource {
 public:
  ReceivedSignals(SupervisedRun& run, UniqueFd fd) : run_(run), fd_(std::move(fd)) {}

  std::vector<int> descriptors() const override { return {fd_.get()}; }

  void on_ready(int) override {
    signalfd_siginfo info{};
    while (::read(fd_.get(), &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
      const int sig = static_cast<int>(info.ssi_signo);
      if (sig == SIGCHLD) {
        run_.reap_children();
      } else if (sig == SIGWINCH) {
        run_.terminal_resized();
      } else {
        record(info, run_.forward_to_job(sig, info.ssi_code));
      }
    }
  }

 private:
  // Who sent ftdiag a signal, read at once: the sender may be gone in a
  // moment (a scheduler's kill command), and ftdiag itself may be next.
  // Synced at once, since a SIGKILL to ftdiag can follow the grace period.
  void record(const signalfd_siginfo& info, bool forwarded) {
    evidence::SignalReceived received{.time = wall_clock_now(),
                                      .signal = static_cast<int>(info.ssi_signo),
                                      .sender_pid = static_cast<int>(info.ssi_pid),
                                      .sender_uid = static_cast<int>(info.ssi_uid),
                                      .code = info.ssi_code,
                                      .forwarded = forwarded};
    if (received.sender_pid > 0) {
      received.sender_comm = process_comm(run_.options().roots, received.sender_pid);
      received.sender_command = process_command_line(run_.options().roots, received.sender_pid, kMaxSenderCommandBytes);
    }
    run_.record_durable(received);
  }

  SupervisedRun& run_;
  UniqueFd fd_;
};

}  // namespace

OpenedSource open_received_signals(SourceSetup& setup) {
  // A SIGCHLD that comes before the loop runs stays pending and is read
  // from the signalfd then, so no exit is missed.
  UniqueFd fd(::signalfd(-1, &setup.supervised_signals, SFD_NONBLOCK | SFD_CLOEXEC));
  if (!fd.valid()) return cannot_supervise("watch the job", "signalfd", errno, setup.run);
  return std::make_unique<ReceivedSignals>(setup.run, std::move(fd));
}

}  // namespace ftdiag::supervise
