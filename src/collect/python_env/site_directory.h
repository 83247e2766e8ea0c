// One directory of sys.path (a site-packages, a PYTHONPATH entry), and the
// catalogued packages (parse/python_env/python_package_catalogue.h) it
// holds: their recorded metadata (dist-info, egg-info) and their import
// folders.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "parse/python_env/dist_info.h"

namespace ftdiag::collect {

// A catalogued package seen in one directory.
struct PackageSighting {
  std::string name;  // normalised distribution name
  std::optional<parse::DistributionMetadata> metadata;  // what its dist-info/egg-info says
  bool has_import_dir = false;                   // NAME/__init__.py is there: `import` would load it
};

struct SiteDirectoryScan {
  std::vector<PackageSighting> sightings;  // by name
  std::vector<std::string> problems;       // unreadable or doubled metadata, in words
};

// Lists the directory (at most 100 000 entries) and reads the metadata of
// catalogued distributions only: at most 1 MiB of each METADATA/PKG-INFO, of
// which only the header is parsed. A metadata file that cannot be read or
// parsed falls back to the version in its folder's name, with a problem.
SiteDirectoryScan scan_site_directory(const std::filesystem::path& directory);

}  // namespace ftdiag::collect
