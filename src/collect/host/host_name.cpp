#include "collect/host/host_name.h"

#include <limits.h>
#include <unistd.h>

namespace ftdiag::collect {

std::string host_name() {
  char name[HOST_NAME_MAX + 1] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown-host";
  return name;
}

}  // namespace ftdiag::collect
