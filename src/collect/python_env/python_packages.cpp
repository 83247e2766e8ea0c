#include "collect/python_env/python_packages.h"

#include <map>
#include <set>

#include "collect/python_env/package_builds.h"
#include "collect/python_env/python_files.h"
#include "collect/python_env/site_directory.h"
#include "parse/python_env/python_package_catalogue.h"

namespace ftdiag::collect {
namespace {

constexpr std::size_t kMaxSysPathEntries = 256;

// One package seen in one sys.path directory, in sys.path order.
struct Located {
  std::string directory;
  PackageSighting sighting;
};
using Sightings = std::map<std::string, std::vector<Located>>;

Sightings scan_sys_path(std::span<const std::string> sys_path, std::vector<std::string>& problems) {
  Sightings by_name;
  std::set<std::string> scanned;
  for (const auto& entry : sys_path.first(std::min(sys_path.size(), kMaxSysPathEntries))) {
    // A zip archive or a directory that does not exist holds nothing to read.
    if (entry.empty() || !scanned.insert(entry).second || !path_is_directory(entry)) continue;
    auto scan = scan_site_directory(entry);
    problems.insert(problems.end(), scan.problems.begin(), scan.problems.end());
    for (auto& sighting : scan.sightings) by_name[sighting.name].push_back(Located{entry, std::move(sighting)});
  }
  if (sys_path.size() > kMaxSysPathEntries) {
    problems.push_back("sys.path has " + std::to_string(sys_path.size()) + " entries: only the first " +
                       std::to_string(kMaxSysPathEntries) + " were read");
  }
  return by_name;
}

bool counts_for_import(const parse::CataloguedPackage& catalogued, const Located& located) {
  return catalogued.import_dir.empty() || located.sighting.has_import_dir;
}

std::filesystem::path import_folder(const parse::CataloguedPackage& catalogued, const Located& located) {
  return std::filesystem::path(located.directory) / std::string(catalogued.import_dir);
}

// The version a copy states: torch's own version.py first (what
// torch.__version__ says; Debian's has no dist-info version to match), else
// its metadata, else its build file's (DeepSpeed's version=).
std::string stated_version(const parse::CataloguedPackage& catalogued, const Located& located, const PackageBuild& build) {
  const auto& metadata = located.sighting.metadata;
  if (catalogued.name == "torch" && !build.version.empty()) return build.version;
  if (metadata) return metadata->version;
  return build.version;
}

std::string first_metadata_version(const std::vector<Located>& copies) {
  for (const auto& copy : copies) {
    if (copy.sighting.metadata) return copy.sighting.metadata->version;
  }
  return {};
}

PackageBuild read_build(const parse::CataloguedPackage& catalogued, const Located& located) {
  if (!located.sighting.has_import_dir) return {};
  return read_package_build(catalogued.name, import_folder(catalogued, located));
}

std::string describe(const std::string& name, const std::string& version, const std::string& directory) {
  return name + " " + (version.empty() ? "(version unknown)" : version) + " in " + directory;
}

void note_shadowed(const parse::CataloguedPackage& catalogued, const std::vector<Located>& copies,
                   const Located& winner, const model::PythonPackage& package,
                   std::vector<std::string>& problems) {
  for (const auto& copy : copies) {
    if (&copy == &winner || !counts_for_import(catalogued, copy)) continue;
    const std::string version = stated_version(catalogued, copy, read_build(catalogued, copy));
    problems.push_back(describe(package.name, version, copy.directory) + " is shadowed by " +
                       describe(package.name, package.version, package.location));
  }
}

model::PythonPackage choose(const parse::CataloguedPackage& catalogued, const std::string& name,
                            const std::vector<Located>& copies, std::vector<std::string>& problems) {
  const Located* winner = &copies.front();
  for (const auto& copy : copies) {
    if (counts_for_import(catalogued, copy)) {
      winner = &copy;
      break;
    }
  }
  PackageBuild build = read_build(catalogued, *winner);
  model::PythonPackage package{name, stated_version(catalogued, *winner, build), winner->directory, build.build};
  if (package.version.empty()) package.version = first_metadata_version(copies);
  problems.insert(problems.end(), build.problems.begin(), build.problems.end());
  if (!counts_for_import(catalogued, *winner)) {
    problems.push_back(describe(name, package.version, package.location) + " is recorded, but no sys.path " +
                       "directory holds its package folder " + std::string(catalogued.import_dir) + "/");
  }
  if (package.version.empty()) problems.push_back("no version found for " + name + " in " + package.location);
  note_shadowed(catalogued, copies, *winner, package, problems);
  return package;
}

}  // namespace

FoundPackages find_python_packages(std::span<const std::string> sys_path) {
  FoundPackages found;
  const Sightings by_name = scan_sys_path(sys_path, found.problems);
  for (const auto& [name, copies] : by_name) {
    const parse::CataloguedPackage* catalogued = parse::catalogued_package(name);
    if (catalogued == nullptr || copies.empty()) continue;
    found.packages.push_back(choose(*catalogued, name, copies, found.problems));
  }
  return found;
}

}  // namespace ftdiag::collect
