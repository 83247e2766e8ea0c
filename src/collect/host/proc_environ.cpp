#include "collect/host/proc_environ.h"

#include "base/read_file.h"

namespace ftdiag::collect {

namespace {

constexpr std::size_t kMaxEnvironBytes = 256 * 1024;

}  // namespace

Fact<std::map<std::string, std::string>> read_role_environment(const SystemRoots& roots, int pid) {
  auto text = read_small_file(roots.path("/proc/" + std::to_string(pid) + "/environ"), kMaxEnvironBytes);
  if (!text) return text.missing();
  return parse::parse_role_environment(text.value());
}

}  // namespace ftdiag::collect
