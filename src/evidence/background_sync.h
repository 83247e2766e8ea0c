// Makes the journal durable without stalling the supervisor.
//
// Records are already in the page cache when written (they survive ftdiag's
// own death); fdatasync only adds survival of a node crash, and costs
// milliseconds. Done on the event loop, a burst of deaths (hundreds of
// compile workers) would stall the relay of the job's output, so a worker
// thread syncs on request, coalescing requests that arrive while it syncs.
#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace ftdiag::evidence {

class BackgroundSync {
 public:
  // The descriptors are not owned and must outlive this object. Start it
  // after forking the job: the child must not inherit a running thread.
  explicit BackgroundSync(std::vector<int> fds);
  BackgroundSync(const BackgroundSync&) = delete;
  BackgroundSync& operator=(const BackgroundSync&) = delete;
  ~BackgroundSync();  // syncs what was requested, then stops

  // Returns at once; the sync happens soon after.
  void request();

 private:
  void loop();

  std::vector<int> fds_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool requested_ = false;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace ftdiag::evidence
