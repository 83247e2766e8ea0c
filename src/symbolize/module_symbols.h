// Names for a place in a binary, read out of process with elfutils' libdwfl:
// a file offset in a module (what the kernel's "segfault at ... in
// LIB[OFFSET,START+SIZE]" line gives, or a frame mapped through
// /proc/PID/maps) becomes the function, and with DWARF its source file and
// line, with the chain of inlined calls. Modules without DWARF (pip wheels of
// torch) still give their symbol table's names. Separate debug files are
// found by build-id under /usr/lib/debug/.build-id (libdwfl's standard
// callbacks, as eu-addr2line and gdb look for them).
//
// Lazy and cached: one Dwfl per module file, opened on first use and kept,
// keyed by path and build-id (a library replaced on disk is opened again);
// DWARF is read only for the compile units holding the looked-up addresses
// (dwfl_module_addrdie goes through .debug_aranges), and each answered
// offset is remembered, so a stack that recurses through the same functions
// reads their DWARF once.
//
// Not thread-safe: one ModuleSymbols per thread. Nothing here throws except
// std::bad_alloc.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ftdiag::symbolize {

struct SourcePlace {
  std::string function;       // demangled when it is C++, as the symbol table names it otherwise
  std::string file;           // empty without DWARF
  std::optional<int> line;
  std::uint64_t address = 0;  // the module-relative address (the ELF's own vaddr)
  bool inlined = false;       // an inlined call: the next place is its caller
};

class ModuleSymbols {
 public:
  ModuleSymbols();
  ~ModuleSymbols();
  ModuleSymbols(const ModuleSymbols&) = delete;
  ModuleSymbols& operator=(const ModuleSymbols&) = delete;

  // The place at `file_offset` into the mapped file `module` (the offset of
  // an instruction, not a return address: no adjustment): the symbol table's
  // function and the line table's file:line. nullopt when the file cannot be
  // read as ELF or no symbol covers the place.
  std::optional<SourcePlace> at_file_offset(const std::filesystem::path& module, std::uint64_t file_offset);

  // Every place the instruction at `file_offset` stands for: the innermost
  // inlined call first (inlined = true, file:line from the line table), each
  // caller next at its call site (DW_AT_call_file/DW_AT_call_line), the
  // out-of-line function last. Without DWARF, one place named from the
  // symbol table. Empty when nothing names it: not ELF, unreadable, or the
  // offset is not in an executable segment (no instruction is there).
  std::vector<SourcePlace> places_at_file_offset(const std::filesystem::path& module, std::uint64_t file_offset);

  // The module's GNU build-id in lowercase hex; empty when it has none or
  // cannot be read.
  std::string build_id(const std::filesystem::path& module);

 private:
  struct Module;
  struct FileState;
  Module* open(const std::filesystem::path& module);
  Module* open_new(const std::filesystem::path& module);
  std::map<std::string, std::unique_ptr<FileState>> files_;   // by path: what is on disk now
  std::map<std::string, std::unique_ptr<Module>> modules_;    // by path + build-id
};

}  // namespace ftdiag::symbolize
