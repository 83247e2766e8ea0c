#include "journal/background_sync.h"

#include <unistd.h>

#include <cerrno>

#include "journal/write_failures.h"

namespace ftdiag::journal {

BackgroundSync::BackgroundSync(std::vector<SyncTarget> targets)
    : targets_(std::move(targets)), worker_([this] { loop(); }) {}

BackgroundSync::~BackgroundSync() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  worker_.join();
}

void BackgroundSync::request() {
  {
    std::lock_guard lock(mutex_);
    requested_ = true;
  }
  wake_.notify_one();
}

// A failed fdatasync (ENOSPC or EIO on write-back) means pages of the record
// may never reach the disk: as much a gap in the record as a failed write.
void BackgroundSync::sync_all() {
  for (const auto& target : targets_) {
    if (::fdatasync(target.fd) != 0 && target.failures) target.failures->report(target.file, "fdatasync", errno);
  }
}

void BackgroundSync::loop() {
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return requested_ || stopping_; });
    if (!requested_ && stopping_) return;
    requested_ = false;
    lock.unlock();
    sync_all();
    lock.lock();
  }
}

}  // namespace ftdiag::journal
