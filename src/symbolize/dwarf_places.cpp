#include "symbolize/dwarf_places.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>

#include <cstdlib>
#include <filesystem>
#include <optional>

namespace ftdiag::symbolize {

namespace {

// Frees what libdw's dwarf_getscopes* malloc'd.
struct ScopeArray {
  Dwarf_Die* dies = nullptr;
  int count = 0;
  ~ScopeArray() { std::free(dies); }
};

bool is_function(Dwarf_Die* die) {
  const int tag = dwarf_tag(die);
  return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_entry_point;
}

// The linkage name (demangled) when there is one, so C++ reads like the
// symbol table; DW_AT_name otherwise. dwarf_attr_integrate follows
// DW_AT_abstract_origin (an inlined instance) and DW_AT_specification (a
// member defined outside its class).
std::string function_name(Dwarf_Die* die) {
  Dwarf_Attribute attribute;
  for (int name : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name}) {
    if (const char* linkage = dwarf_formstring(dwarf_attr_integrate(die, name, &attribute))) return demangle(linkage);
  }
  const char* plain = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attribute));
  return plain != nullptr ? plain : "";
}

// Where an inlined call was made: DW_AT_call_file indexes the CU's file table.
void call_site(Dwarf_Die* inlined, std::string& file, std::optional<int>& line) {
  file.clear();
  line.reset();
  Dwarf_Attribute attribute;
  Dwarf_Word value = 0;
  if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_line, &attribute), &value) == 0 && value > 0) {
    line = static_cast<int>(value);
  }
  Dwarf_Die cu;
  Dwarf_Files* files = nullptr;
  std::size_t count = 0;
  if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_file, &attribute), &value) != 0 ||
      dwarf_diecu(inlined, &cu, nullptr, nullptr) == nullptr || dwarf_getsrcfiles(&cu, &files, &count) != 0 ||
      value >= count) {
    return;
  }
  file = source_path(dwarf_filesrc(files, value, nullptr, nullptr), &cu);
}

}  // namespace

std::string source_path(const char* file, Dwarf_Die* cu) {
  if (file == nullptr) return {};
  Dwarf_Attribute attribute;
  if (file[0] == '/' || cu == nullptr) return file;
  const char* folder = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attribute));
  if (folder == nullptr || folder[0] != '/') return file;
  return (std::filesystem::path(folder) / file).lexically_normal().string();
}

void line_table_place(Dwfl_Module* module, Dwarf_Addr address, std::string& file, std::optional<int>& line) {
  Dwfl_Line* entry = dwfl_module_getsrc(module, address);
  int number = 0;
  const char* name = entry != nullptr ? dwfl_lineinfo(entry, nullptr, &number, nullptr, nullptr, nullptr) : nullptr;
  if (name == nullptr) return;
  file = source_path(name, dwfl_linecu(entry));
  if (number > 0) line = number;
}

std::string hex_bytes(const unsigned char* bytes, int size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  for (int i = 0; i < size; ++i) {
    text += kDigits[bytes[i] >> 4];
    text += kDigits[bytes[i] & 0xf];
  }
  return text;
}

std::string demangle(const char* name) {
  if (name == nullptr) return {};
  int status = 0;
  char* plain = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || plain == nullptr) return name;
  std::string text(plain);
  std::free(plain);
  return text;
}

std::vector<SourcePlace> dwarf_places(Dwfl_Module* module, Dwarf_Addr address, std::uint64_t vaddr) {
  Dwarf_Addr bias = 0;
  Dwarf_Die* cu = dwfl_module_addrdie(module, address, &bias);
  if (cu == nullptr) return {};
  ScopeArray scopes;
  scopes.count = dwarf_getscopes(cu, address - bias, &scopes.dies);
  if (scopes.count <= 0) return {};
  ScopeArray chain;
  chain.count = dwarf_getscopes_die(&scopes.dies[0], &chain.dies);
  std::vector<SourcePlace> places;
  SourcePlace next{.address = vaddr};
  line_table_place(module, address, next.file, next.line);
  for (int i = 0; i < chain.count; ++i) {
    Dwarf_Die* scope = &chain.dies[i];
    if (!is_function(scope)) continue;  // lexical blocks
    next.function = function_name(scope);
    next.inlined = dwarf_tag(scope) == DW_TAG_inlined_subroutine;
    places.push_back(next);
    if (!next.inlined) break;  // the out-of-line function ends the chain
    call_site(scope, next.file, next.line);
  }
  return places;
}

}  // namespace ftdiag::symbolize
