#include "collect/python_env/library_path.h"

#include <set>

#include "base/text.h"
#include "collect/python_env/python_files.h"
#include "parse/python_env/runtime_libraries.h"

namespace ftdiag::collect {
namespace {

constexpr std::size_t kMaxDirectories = 64;
constexpr std::size_t kMaxLibraryPathEntries = 100000;

model::LibraryPathEntry read_entry(const std::string& directory, std::vector<std::string>& problems) {
  model::LibraryPathEntry entry{directory, {}};
  auto listing = list_directory(directory, kMaxLibraryPathEntries);
  if (!listing) {
    problems.push_back("LD_LIBRARY_PATH: could not list " + directory + ": " + listing.missing().detail);
    return entry;
  }
  if (listing->truncated) {
    problems.push_back("LD_LIBRARY_PATH: " + directory + " holds more than " + std::to_string(kMaxLibraryPathEntries) +
                       " entries: only the first were read");
  }
  for (const auto& name : listing->names) {  // sorted already
    if (parse::names_cuda_or_torch_runtime(name)) entry.provides.push_back(name);
  }
  return entry;
}

}  // namespace

LibraryPathReading read_library_path(std::string_view value) {
  LibraryPathReading reading;
  std::set<std::string_view> seen;
  for (std::string_view directory : text::split(value, ':')) {
    if (directory.empty() || !seen.insert(directory).second) continue;
    if (reading.entries.size() == kMaxDirectories) {
      reading.problems.push_back("LD_LIBRARY_PATH has more than " + std::to_string(kMaxDirectories) +
                                 " directories: only the first were read");
      break;
    }
    reading.entries.push_back(read_entry(std::string(directory), reading.problems));
  }
  return reading;
}

}  // namespace ftdiag::collect
