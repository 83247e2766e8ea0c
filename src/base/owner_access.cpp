#include "base/owner_access.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>

namespace ftdiag {

OwnerAccess OwnerAccess::of_user(uid_t uid) {
  std::vector<gid_t> groups;
  struct passwd entry {};
  struct passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) != 0 || found == nullptr) {
    return OwnerAccess(uid, std::move(groups));
  }
  // getgrouplist says how many there are when the first guess is short.
  int count = 64;
  std::vector<gid_t> listed(static_cast<std::size_t>(count));
  if (::getgrouplist(found->pw_name, found->pw_gid, listed.data(), &count) < 0) {
    listed.resize(static_cast<std::size_t>(count));
    if (::getgrouplist(found->pw_name, found->pw_gid, listed.data(), &count) < 0) count = 0;
  }
  listed.resize(static_cast<std::size_t>(std::max(count, 0)));
  groups.insert(groups.end(), listed.begin(), listed.end());
  return OwnerAccess(uid, std::move(groups));
}

bool OwnerAccess::allows(const struct stat& st, mode_t owner_bit, mode_t group_bit, mode_t other_bit) const {
  if (uid_ == 0) return true;
  // The kernel's order: the owner class decides for the owner even when the
  // group or others would allow more.
  if (st.st_uid == uid_) return (st.st_mode & owner_bit) != 0;
  if (std::find(groups_.begin(), groups_.end(), st.st_gid) != groups_.end()) return (st.st_mode & group_bit) != 0;
  return (st.st_mode & other_bit) != 0;
}

}  // namespace ftdiag
