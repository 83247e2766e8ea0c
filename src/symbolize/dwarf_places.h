// The DWARF half of ModuleSymbols: which functions, inlined and out of line,
// an address of one module stands for, and the demangling both halves share.
#pragma once

#include <elfutils/libdwfl.h>

#include <optional>
#include <string>
#include <vector>

#include "symbolize/module_symbols.h"

namespace ftdiag::symbolize {

// Bytes (a build-id) as lowercase hex.
std::string hex_bytes(const unsigned char* bytes, int size);

// C++ names demangled (with their parameters, as the symbol table's demangled
// name reads); anything else as it is. Empty for null.
std::string demangle(const char* name);

// A line table's file name made absolute with the CU's DW_AT_comp_dir when
// it is relative ("../../tests/crashers/die.c" as a build in build/tests
// names it), lexically normalised; as it is otherwise. Empty for null.
std::string source_path(const char* file, Dwarf_Die* cu);

// The file:line the line table gives for `address`; both untouched when it
// has no row there.
void line_table_place(Dwfl_Module* module, Dwarf_Addr address, std::string& file, std::optional<int>& line);

// The places `address` (in dwfl's address space for `module`) stands for,
// innermost inlined call first, from the compile unit that covers it:
//   dwfl_module_addrdie (through .debug_aranges: only that CU is read)
//   -> dwarf_getscopes (the innermost scope holding the address)
//   -> dwarf_getscopes_die (its concrete parents: dwarf_getscopes continues an
//      inlined scope in its abstract origin, not in the function it was
//      inlined into; eu-addr2line --inlines does the same).
// The innermost place's file:line comes from the line table, each caller's
// from the inlined scope's DW_AT_call_file/DW_AT_call_line. `vaddr` is put
// in every place's address. Empty when no DWARF scope holds the address.
std::vector<SourcePlace> dwarf_places(Dwfl_Module* module, Dwarf_Addr address, std::uint64_t vaddr);

}  // namespace ftdiag::symbolize
