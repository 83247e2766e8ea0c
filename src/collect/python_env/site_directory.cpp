#include "collect/python_env/site_directory.h"

#include <map>

#include "collect/python_env/python_files.h"
#include "parse/python_env/python_package_catalogue.h"

namespace ftdiag::collect {
namespace {

constexpr std::size_t kMaxEntries = 100000;
constexpr std::size_t kMaxMetadataBytes = 1 << 20;

// dist-info keeps METADATA; an egg-info is a folder with PKG-INFO or, from
// older setuptools, the PKG-INFO file itself.
std::filesystem::path metadata_file(const std::filesystem::path& entry, parse::DistributionEntry::Kind kind) {
  if (kind == parse::DistributionEntry::Kind::dist_info) return entry / "METADATA";
  return path_is_directory(entry) ? entry / "PKG-INFO" : entry;
}

parse::DistributionMetadata read_metadata(const std::filesystem::path& entry, const parse::DistributionEntry& parsed,
                                   std::vector<std::string>& problems) {
  const auto file = metadata_file(entry, parsed.kind);
  auto text = read_regular_file(file, kMaxMetadataBytes);
  auto metadata = text ? parse::parse_distribution_metadata(*text) : Fact<parse::DistributionMetadata>(text.missing());
  if (metadata) return *metadata;
  problems.push_back("could not read " + file.string() + " (" + metadata.missing().detail +
                     "): used the version in the folder's name, '" + parsed.version + "'");
  return parse::DistributionMetadata{parsed.name, parsed.version};
}

bool is_import_dir_of_catalogued(const std::string& name, std::string* package) {
  for (const auto& catalogued : parse::catalogued_import_packages()) {
    if (catalogued.import_dir == name) {
      *package = std::string(catalogued.name);
      return true;
    }
  }
  return false;
}

void note_metadata(const std::filesystem::path& directory, const std::string& entry_name,
                   std::map<std::string, PackageSighting>& seen, std::vector<std::string>& problems) {
  auto parsed = parse::parse_distribution_entry(entry_name);
  if (!parsed || parse::catalogued_package(parsed->name) == nullptr) return;
  auto& sighting = seen[parsed->name];
  sighting.name = parsed->name;
  parse::DistributionMetadata metadata = read_metadata(directory / entry_name, *parsed, problems);
  if (sighting.metadata) {
    // A leftover of an interrupted upgrade: importlib.metadata may report either.
    problems.push_back(parsed->name + " is recorded twice in " + directory.string() + ": " +
                       sighting.metadata->version + " and " + metadata.version + " (the first is reported)");
    return;
  }
  sighting.metadata = std::move(metadata);
}

void note_import_dir(const std::filesystem::path& directory, const std::string& entry_name,
                     std::map<std::string, PackageSighting>& seen) {
  std::string package;
  if (!is_import_dir_of_catalogued(entry_name, &package)) return;
  if (!path_is_regular_file(directory / entry_name / "__init__.py")) return;
  seen[package].name = package;
  seen[package].has_import_dir = true;
}

}  // namespace

SiteDirectoryScan scan_site_directory(const std::filesystem::path& directory) {
  SiteDirectoryScan scan;
  auto listing = list_directory(directory, kMaxEntries);
  if (!listing) {
    scan.problems.push_back("could not list " + directory.string() + ": " + listing.missing().detail);
    return scan;
  }
  if (listing->truncated) {
    scan.problems.push_back(directory.string() + " holds more than " + std::to_string(kMaxEntries) +
                            " entries: only the first were read");
  }
  std::map<std::string, PackageSighting> seen;
  for (const auto& name : listing->names) {
    note_metadata(directory, name, seen, scan.problems);
    note_import_dir(directory, name, seen);
  }
  for (auto& [name, sighting] : seen) scan.sightings.push_back(std::move(sighting));
  return scan;
}

}  // namespace ftdiag::collect
