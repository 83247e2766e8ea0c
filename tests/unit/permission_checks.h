// Root reads any file whatever its mode: CAP_DAC_OVERRIDE and
// CAP_DAC_READ_SEARCH bypass the permission bits. A test of what a user
// without permission sees drops both from this process's effective set for
// its scope (they stay permitted, so the destructor raises them again), and
// so runs as root too instead of being skipped there.
#pragma once

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace ftdiag::test {

class PermissionChecksApply {
 public:
  PermissionChecksApply() {
    header_.version = _LINUX_CAPABILITY_VERSION_3;
    header_.pid = 0;
    if (::syscall(SYS_capget, &header_, saved_) != 0) return;
    __user_cap_data_struct lowered[2] = {saved_[0], saved_[1]};
    lowered[0].effective &= ~((1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH));
    active_ = ::syscall(SYS_capset, &header_, lowered) == 0;
  }
  ~PermissionChecksApply() {
    if (active_) ::syscall(SYS_capset, &header_, saved_);
  }
  PermissionChecksApply(const PermissionChecksApply&) = delete;
  PermissionChecksApply& operator=(const PermissionChecksApply&) = delete;

  // False when capabilities could not be changed (then a root test must skip).
  bool active() const { return active_ || ::geteuid() != 0; }

 private:
  __user_cap_header_struct header_{};
  __user_cap_data_struct saved_[2]{};
  bool active_ = false;
};

}  // namespace ftdiag::test
