#include "evidence/background_sync.h"

#include <unistd.h>

namespace ftdiag::evidence {

BackgroundSync::BackgroundSync(std::vector<int> fds) : fds_(std::move(fds)), worker_([this] { loop(); }) {}

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

void BackgroundSync::loop() {
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return requested_ || stopping_; });
    if (!requested_ && stopping_) return;
    requested_ = false;
    lock.unlock();
    for (int fd : fds_) ::fdatasync(fd);
    lock.lock();
  }
}

}  // namespace ftdiag::evidence
