// Makes the journal durable without stalling the supervisor.
//
// Records are already in the page cache when written (they survive ftdiag's
// own death); fdatasync only adds survival of a node crash, and costs
// milliseconds. Done on the event loop, a burst of deaths (hundreds of
// compile workers) would stall the relay of the job's output, so a worker
// thread syncs on request, coalescing requests that arrive while it syncs.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ftdiag::journal {

class WriteFailures;

// A descriptor to sync, the file's name, and where a failed sync is reported
// (may be null).
struct SyncTarget {
  int fd = -1;
  const char* file = "";
  std::shared_ptr<WriteFailures> failures;
};

class BackgroundSync {
 public:
  // The descriptors are not owned and must outlive this object. Start it
  // after forking the job: the child must not inherit a running thread.
  explicit BackgroundSync(std::vector<SyncTarget> targets);
  BackgroundSync(const BackgroundSync&) = delete;
  BackgroundSync& operator=(const BackgroundSync&) = delete;
  ~BackgroundSync();  // syncs what was requested, then stops

  // Returns at once; the sync happens soon after.
  void request();

 private:
  void loop();
  void sync_all();

  std::vector<SyncTarget> targets_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool requested_ = false;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace ftdiag::journal
