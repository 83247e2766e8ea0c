#include "supervise/command_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace ftdiag::supervise {

std::variant<std::string, int> resolve_command(std::string_view name, std::string_view search_path) {
  if (name.empty()) return ENOENT;
  if (name.find('/') != std::string_view::npos) return std::string(name);
  bool found_unexecutable = false;
  std::size_t begin = 0;
  while (begin <= search_path.size()) {
    std::size_t end = search_path.find(':', begin);
    if (end == std::string_view::npos) end = search_path.size();
    const std::string_view directory = search_path.substr(begin, end - begin);
    std::string candidate = directory.empty() ? "./" + std::string(name) : std::string(directory) + "/" + std::string(name);
    struct stat status {};
    if (::stat(candidate.c_str(), &status) == 0 && S_ISREG(status.st_mode)) {
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
      found_unexecutable = true;  // execvp goes on searching, then reports EACCES
    }
    begin = end + 1;
  }
  return found_unexecutable ? EACCES : ENOENT;
}

}  // namespace ftdiag::supervise
