#include "base/fact.h"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace ftdiag {

std::string_view to_string(MissingReason reason) {
  switch (reason) {
    case MissingReason::not_present: return "not-present";
    case MissingReason::permission_denied: return "permission-denied";
    case MissingReason::timed_out: return "timed-out";
    case MissingReason::unparseable: return "unparseable";
    case MissingReason::unsupported: return "unsupported";
    case MissingReason::failed: return "failed";
  }
  return "failed";
}

MissingReason missing_reason_from_string(std::string_view text) {
  for (auto reason : {MissingReason::not_present, MissingReason::permission_denied,
                      MissingReason::timed_out, MissingReason::unparseable,
                      MissingReason::unsupported}) {
    if (to_string(reason) == text) return reason;
  }
  return MissingReason::failed;
}

Missing missing_from_errno(int error_number, std::string_view what) {
  MissingReason reason = MissingReason::failed;
  switch (error_number) {
    case ENOENT:
    case ESRCH:
    case ENOTDIR: reason = MissingReason::not_present; break;
    case EACCES:
    case EPERM: reason = MissingReason::permission_denied; break;
    case ETIMEDOUT: reason = MissingReason::timed_out; break;
    case ENOSYS:
    case EOPNOTSUPP:
    case EPROTONOSUPPORT: reason = MissingReason::unsupported; break;
    default: break;
  }
  return Missing{reason, fmt::format("{}: {}", what, std::strerror(error_number))};
}

}  // namespace ftdiag
