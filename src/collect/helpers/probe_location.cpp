#include "collect/helpers/probe_location.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace ftdiag::collect {

namespace fs = std::filesystem;

std::vector<fs::path> probe_folders() {
  std::vector<fs::path> folders;
  if (const char* dir = std::getenv("FTDIAG_PROBE_DIR"); dir && *dir) folders.emplace_back(dir);
  std::error_code ec;
  const auto self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    folders.push_back(self.parent_path() / "probes");
#ifdef FTDIAG_PROBE_DIR_FROM_BINDIR
    // Installed under any prefix (a .deb's /usr, cmake --install's /usr/local,
    // a user's ~/.local): the probes are where the install put them beside bin/.
    folders.push_back((self.parent_path() / FTDIAG_PROBE_DIR_FROM_BINDIR).lexically_normal());
#endif
  }
#ifdef FTDIAG_INSTALLED_PROBE_DIR
  folders.emplace_back(FTDIAG_INSTALLED_PROBE_DIR);
#endif
  return folders;
}

Fact<fs::path> find_probe_file(const fs::path& relative) {
  std::string looked;
  for (const auto& folder : probe_folders()) {
    const auto candidate = folder / relative;
    if (::access(candidate.c_str(), R_OK) == 0) return candidate;
    looked += (looked.empty() ? "" : ", ") + candidate.string();
  }
  return Missing{MissingReason::not_present, "not found (looked at " + looked + ")"};
}

}  // namespace ftdiag::collect
