// Names for a place in a binary, read out of process with elfutils' libdwfl:
// a file offset in a module (what the kernel's "segfault at ... in
// LIB[OFFSET,START+SIZE]" line gives) becomes the function, and with DWARF
// its source file and line. Modules without DWARF (pip wheels of torch) still
// give their symbol table's names. One Dwfl per module, opened on first use
// and cached, so a crash that names the same library twice reads it once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace ftdiag::symbolize {

struct SourcePlace {
  std::string function;       // demangled when it is C++, as the symbol table names it otherwise
  std::string file;           // empty without DWARF
  std::optional<int> line;
  std::uint64_t address = 0;  // the module-relative address (the ELF's own vaddr)
};

class ModuleSymbols {
 public:
  ModuleSymbols();
  ~ModuleSymbols();
  ModuleSymbols(const ModuleSymbols&) = delete;
  ModuleSymbols& operator=(const ModuleSymbols&) = delete;

  // The place at `file_offset` into the mapped file `module` (the offset of
  // an instruction pointer, not a return address: no adjustment). nullopt
  // when the file cannot be read as ELF or no symbol covers the place.
  std::optional<SourcePlace> at_file_offset(const std::filesystem::path& module, std::uint64_t file_offset);

 private:
  struct Module;
  Module* open(const std::filesystem::path& module);
  std::map<std::string, std::unique_ptr<Module>> modules_;
};

}  // namespace ftdiag::symbolize
