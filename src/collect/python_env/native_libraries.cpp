#include "collect/python_env/native_libraries.h"

#include <sys/stat.h>

#include <filesystem>
#include <set>
#include <utility>

#include "collect/python_env/elf_needed.h"
#include "collect/python_env/python_files.h"
#include "parse/python_env/python_package_catalogue.h"
#include "parse/python_env/runtime_libraries.h"

namespace ftdiag::collect {
namespace {

constexpr std::size_t kMaxFiles = 2000;
constexpr std::size_t kMaxFilesPerFolder = 200;
constexpr int kMaxLibraryDepth = 8;
constexpr std::size_t kMaxEntriesPerFolder = 10000;
constexpr std::size_t kMaxFolders = 5000;
constexpr std::size_t kMaxListedProblems = 20;

// "libtorch_cuda.so", "flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so", "libcudart.so.12".
bool is_library_name(std::string_view name) {
  return name.ends_with(".so") || name.find(".so.") != std::string_view::npos;
}

class LibraryWalk {
 public:
  explicit LibraryWalk(FoundLibraries& found) : found_(found) {}

  // Counts the problems not listed one by one.
  void finish() {
    if (unlisted_problems_ > 0) {
      found_.problems.push_back(std::to_string(unlisted_problems_) + " more problems with native libraries");
    }
  }

  void package(const model::PythonPackage& package, const parse::CataloguedPackage& catalogued) {
    package_ = std::string(catalogued.import_dir);
    const std::filesystem::path location(package.location);
    for (const auto& place : catalogued.libraries) visit_place(location, place);
  }

 private:
  void visit_place(const std::filesystem::path& location, const parse::LibraryPlace& place) {
    switch (place.kind) {
      case parse::LibraryPlace::Kind::folder: folder(location / place.text, 0, false); break;
      case parse::LibraryPlace::Kind::tree: folder(location / place.text, 0, true); break;
      case parse::LibraryPlace::Kind::top_files: top_level(location, place.text, false); break;
      case parse::LibraryPlace::Kind::top_trees: top_level(location, place.text, true); break;
    }
  }

  // Entries at the top of site-packages whose names start with prefix:
  // library files, or folders to walk.
  void top_level(const std::filesystem::path& location, std::string_view prefix, bool folders) {
    auto listing = list_directory(location, kMaxEntriesPerFolder * 10);
    if (!listing) return;
    for (const auto& name : listing->names) {
      if (!name.starts_with(prefix)) continue;
      const auto path = location / name;
      if (folders && path_is_directory(path)) folder(path, 1, true);
      if (!folders && is_library_name(name) && path_is_regular_file(path)) file(path);
    }
  }

  void folder(const std::filesystem::path& directory, int depth, bool recursive) {
    if (depth > kMaxLibraryDepth || path_is_symlink(directory) || !path_is_directory(directory)) return;
    if (folders_listed_++ == kMaxFolders) problem("more than " + std::to_string(kMaxFolders) + " folders: the rest were not read");
    if (folders_listed_ > kMaxFolders) return;
    auto listing = list_directory(directory, kMaxEntriesPerFolder);
    if (!listing) {
      problem("could not list " + directory.string() + ": " + listing.missing().detail);
      return;
    }
    std::size_t files_here = 0;
    for (const auto& name : listing->names) {
      const auto path = directory / name;
      if (recursive && path_is_directory(path)) {
        folder(path, depth + 1, true);
      } else if (is_library_name(name) && path_is_regular_file(path) && ++files_here <= kMaxFilesPerFolder) {
        file(path);
      }
    }
    if (files_here > kMaxFilesPerFolder) {
      problem(directory.string() + " holds " + std::to_string(files_here) + " libraries: only the first " +
              std::to_string(kMaxFilesPerFolder) + " were read");
    }
  }

  void file(const std::filesystem::path& path) {
    if (!first_sight(path)) return;
    if (files_read_ == kMaxFiles) problem("more than " + std::to_string(kMaxFiles) + " native libraries: the rest were not read");
    if (files_read_++ >= kMaxFiles) return;
    auto needed = read_elf_needed(path);
    if (!needed) {
      problem("skipped " + path.string() + ": " + needed.missing().detail);
      return;
    }
    model::NativeLibrary library{path.string(), package_, {}};
    for (auto& name : *needed) {
      if (parse::names_cuda_or_torch_runtime(name)) library.needed.push_back(std::move(name));
    }
    if (!library.needed.empty()) found_.libraries.push_back(std::move(library));
  }

  // A library reached twice (libtorch.so and a link to it, as Debian's
  // torch/lib links into /usr/lib) is read once, under its first name.
  bool first_sight(const std::filesystem::path& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) return true;  // the read will say what is wrong
    return seen_.insert({info.st_dev, info.st_ino}).second;
  }

  void problem(std::string text) {
    if (found_.problems.size() < kMaxListedProblems) {
      found_.problems.push_back(std::move(text));
    } else {
      ++unlisted_problems_;
    }
  }

  FoundLibraries& found_;
  std::string package_;
  std::size_t files_read_ = 0;
  std::size_t folders_listed_ = 0;
  std::set<std::pair<dev_t, ino_t>> seen_;
  std::size_t unlisted_problems_ = 0;
};

}  // namespace

FoundLibraries find_native_libraries(std::span<const model::PythonPackage> packages) {
  FoundLibraries found;
  LibraryWalk walk(found);
  for (const auto& package : packages) {
    const parse::CataloguedPackage* catalogued = parse::catalogued_package(package.name);
    if (catalogued != nullptr && !catalogued->libraries.empty()) walk.package(package, *catalogued);
  }
  walk.finish();
  return found;
}

}  // namespace ftdiag::collect
