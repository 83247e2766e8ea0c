#include "symbolize/module_symbols.h"

#include <cxxabi.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include <cstdlib>
#include <cstring>

namespace ftdiag::symbolize {

namespace {

// Debuginfo by build-id in the usual places (/usr/lib/debug/.build-id), as
// gdb and eu-addr2line look for it.
char* g_debuginfo_path = nullptr;
const Dwfl_Callbacks kOfflineCallbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &g_debuginfo_path,
};

std::string demangle(const char* name) {
  if (name == nullptr) return {};
  int status = 0;
  char* plain = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || plain == nullptr) return name;
  std::string text(plain);
  std::free(plain);
  return text;
}

}  // namespace

struct ModuleSymbols::Module {
  Dwfl* dwfl = nullptr;
  Dwfl_Module* module = nullptr;
  ~Module() {
    if (dwfl != nullptr) dwfl_end(dwfl);
  }
};

ModuleSymbols::ModuleSymbols() = default;
ModuleSymbols::~ModuleSymbols() = default;

ModuleSymbols::Module* ModuleSymbols::open(const std::filesystem::path& path) {
  auto [it, added] = modules_.try_emplace(path.string());
  if (!added) return it->second.get();
  auto module = std::make_unique<Module>();
  module->dwfl = dwfl_begin(&kOfflineCallbacks);
  if (module->dwfl == nullptr) return nullptr;
  dwfl_report_begin(module->dwfl);
  module->module = dwfl_report_offline(module->dwfl, path.filename().c_str(), path.c_str(), -1);
  dwfl_report_end(module->dwfl, nullptr, nullptr);
  if (module->module == nullptr) return nullptr;
  it->second = std::move(module);
  return it->second.get();
}

std::optional<SourcePlace> ModuleSymbols::at_file_offset(const std::filesystem::path& path, std::uint64_t file_offset) {
  Module* m = open(path);
  if (m == nullptr) return std::nullopt;
  GElf_Addr bias = 0;
  Elf* elf = dwfl_module_getelf(m->module, &bias);
  if (elf == nullptr) return std::nullopt;
  // The loadable segment holding the offset turns it into the ELF's vaddr.
  std::size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) return std::nullopt;
  std::optional<GElf_Addr> vaddr;
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Phdr header;
    if (gelf_getphdr(elf, static_cast<int>(i), &header) == nullptr || header.p_type != PT_LOAD) continue;
    if (file_offset >= header.p_offset && file_offset < header.p_offset + header.p_filesz) {
      vaddr = file_offset - header.p_offset + header.p_vaddr;
      break;
    }
  }
  if (!vaddr) return std::nullopt;
  const Dwarf_Addr address = *vaddr + bias;  // where dwfl placed the module
  SourcePlace place;
  place.address = *vaddr;
  GElf_Off offset = 0;
  GElf_Sym symbol;
  const char* name = dwfl_module_addrinfo(m->module, address, &offset, &symbol, nullptr, nullptr, nullptr);
  place.function = demangle(name);
  if (Dwfl_Line* line = dwfl_module_getsrc(m->module, address)) {
    int number = 0;
    if (const char* file = dwfl_lineinfo(line, nullptr, &number, nullptr, nullptr, nullptr)) {
      place.file = file;
      if (number > 0) place.line = number;
    }
  }
  if (place.function.empty() && place.file.empty()) return std::nullopt;
  return place;
}

}  // namespace ftdiag::symbolize
