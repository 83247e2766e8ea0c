#include "collect/system_roots.h"

namespace ftdiag::collect {

std::filesystem::path SystemRoots::path(std::string_view absolute) const {
  // std::filesystem::path's operator/ replaces the left side when the right
  // side is absolute, which would silently escape the fixture root.
  while (!absolute.empty() && absolute.front() == '/') absolute.remove_prefix(1);
  return root / std::filesystem::path(absolute);
}

}  // namespace ftdiag::collect
