// The text of an errno of a failed setup call, with what a user can do about
// the usual ones ("Too many open files (raise the limit on open files: ulimit -n)").
#pragma once

#include <string>

namespace ftdiag::supervise {

std::string errno_with_remedy(int error);

}  // namespace ftdiag::supervise
