// The Python distributions that decide how a training job runs, and where
// each keeps its native libraries: the one list the environment reader
// and the environment reports' parser consult (docs/environment.md). Adding
// a package is adding a row.
#pragma once

#include <span>
#include <string_view>

namespace ftdiag::parse {

// Where, relative to the sys.path directory a package was found in, its
// native libraries (*.so, *.so.N) are.
struct LibraryPlace {
  enum class Kind {
    folder,         // the files of one folder ("torch/lib")
    tree,           // a folder and all below it ("deepspeed/ops")
    top_files,      // files at the top whose names start with text ("flash_attn_2_cuda…so")
    top_trees,      // folders at the top whose names start with text, all below them ("apex…/")
  };
  Kind kind;
  std::string_view text;
};

struct CataloguedPackage {
  std::string_view name;        // normalised distribution name: "flash-attn"
  std::string_view import_dir;  // the folder `import` loads: "flash_attn"; empty: none (nvidia-* wheels)
  std::span<const LibraryPlace> libraries;
};

// The row for a normalised distribution name, or nullptr when the package
// does not matter here. Every "nvidia-…" wheel matters (its version is the
// CUDA component torch loads) and shares one row without an import folder.
const CataloguedPackage* catalogued_package(std::string_view normalized_name);

// The rows with an import folder (every one except the nvidia-* wheels).
std::span<const CataloguedPackage> catalogued_import_packages();

}  // namespace ftdiag::parse
