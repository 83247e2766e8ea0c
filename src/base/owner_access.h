// What a user may read, judged from the permission bits: ftdiag analyzes
// as root a folder another user prepared, and must read there only what that
// user could read themselves (root's CAP_DAC_OVERRIDE would otherwise turn
// `ftdiag analyze` into a way to read root-only files).
//
// The classic check of the mode bits: the owner class when the file is the
// user's, else the group class when one of the user's groups (the primary
// and the supplementary ones, getgrouplist(3)) owns it, else the others.
// POSIX ACLs are not consulted: with an ACL the group bits are its mask, so
// the check can refuse what an ACL grants, never grant what the bits refuse.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <vector>

namespace ftdiag {

class OwnerAccess {
 public:
  // The user `uid` with the groups the user database gives it; a uid it
  // does not know is in no group (only the owner and other bits count).
  static OwnerAccess of_user(uid_t uid);
  // Root: reads everything (a tree root owns is read as root reads it).
  bool is_root() const { return uid_ == 0; }
  uid_t uid() const { return uid_; }

  bool can_read(const struct stat& st) const { return allows(st, S_IRUSR, S_IRGRP, S_IROTH); }
  // Whether the user may pass through a folder to what it holds.
  bool can_search(const struct stat& st) const { return allows(st, S_IXUSR, S_IXGRP, S_IXOTH); }

 private:
  OwnerAccess(uid_t uid, std::vector<gid_t> groups) : uid_(uid), groups_(std::move(groups)) {}
  bool allows(const struct stat& st, mode_t owner_bit, mode_t group_bit, mode_t other_bit) const;

  uid_t uid_;
  std::vector<gid_t> groups_;
};

}  // namespace ftdiag
