#include "symbolize/module_symbols.h"

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <sys/stat.h>

#include <unordered_map>

#include "symbolize/dwarf_places.h"

namespace ftdiag::symbolize {

namespace {

// libdwfl's standard offline callbacks: the ELF by build-id or by its path,
// debuginfo by build-id in /usr/lib/debug/.build-id, then beside the file
// (.debug/) and under /usr/lib/debug (the default path, as gdb and
// eu-addr2line look for it).
char* g_module_debuginfo_path = nullptr;
const Dwfl_Callbacks kOfflineCallbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &g_module_debuginfo_path,
};

// What identifies the file now on disk at a path: a replaced library (a new
// inode, size or time) is looked at again.
struct Identity {
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  timespec modified{};
  bool operator==(const Identity& o) const {
    return device == o.device && inode == o.inode && size == o.size && modified.tv_sec == o.modified.tv_sec &&
           modified.tv_nsec == o.modified.tv_nsec;
  }
};

// Only regular files: a path out of a crash record's maps may name a FIFO
// (whose open would block) or a device.
std::optional<Identity> identity_of(const std::filesystem::path& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0 || !S_ISREG(status.st_mode)) return std::nullopt;
  return Identity{status.st_dev, status.st_ino, status.st_size, status.st_mtim};
}

}  // namespace

struct ModuleSymbols::Module {
  Dwfl* dwfl = nullptr;
  Dwfl_Module* module = nullptr;
  Elf* elf = nullptr;  // owned by dwfl
  GElf_Addr bias = 0;  // where dwfl placed the module
  std::string build_id;
  std::unordered_map<std::uint64_t, std::vector<SourcePlace>> places;  // by file offset, answered before

  ~Module() {
    if (dwfl != nullptr) dwfl_end(dwfl);
  }

  // The loadable segment holding the offset turns it into the ELF's vaddr;
  // `code`: only an executable segment will do (a frame's pc).
  std::optional<GElf_Addr> vaddr_of(std::uint64_t file_offset, bool code = false) const {
    std::size_t count = 0;
    if (elf_getphdrnum(elf, &count) != 0) return std::nullopt;
    for (std::size_t i = 0; i < count; ++i) {
      GElf_Phdr header;
      if (gelf_getphdr(elf, static_cast<int>(i), &header) == nullptr || header.p_type != PT_LOAD) continue;
      if (code && (header.p_flags & PF_X) == 0) continue;
      if (file_offset >= header.p_offset && file_offset - header.p_offset < header.p_filesz) {
        return file_offset - header.p_offset + header.p_vaddr;
      }
    }
    return std::nullopt;
  }

  // The symbol table's name and the line table's file:line at `address`.
  std::optional<SourcePlace> symtab_place(Dwarf_Addr address, GElf_Addr vaddr) const {
    SourcePlace place{.address = vaddr};
    GElf_Off offset = 0;
    GElf_Sym symbol;
    place.function = demangle(dwfl_module_addrinfo(module, address, &offset, &symbol, nullptr, nullptr, nullptr));
    line_table_place(module, address, place.file, place.line);
    if (place.function.empty() && place.file.empty()) return std::nullopt;
    return place;
  }
};

struct ModuleSymbols::FileState {
  Identity identity;
  Module* module = nullptr;  // null: not readable as ELF
};

ModuleSymbols::ModuleSymbols() = default;
ModuleSymbols::~ModuleSymbols() = default;

ModuleSymbols::Module* ModuleSymbols::open(const std::filesystem::path& path) {
  const auto identity = identity_of(path);
  if (!identity) return nullptr;
  auto& state = files_[path.string()];
  if (state != nullptr && state->identity == *identity) return state->module;
  state = std::make_unique<FileState>(FileState{*identity, open_new(path)});
  return state->module;
}

// A fresh Dwfl for the file; the one already open for the same path and
// build-id is kept instead (the file was touched, not changed).
ModuleSymbols::Module* ModuleSymbols::open_new(const std::filesystem::path& path) {
  auto module = std::make_unique<Module>();
  module->dwfl = dwfl_begin(&kOfflineCallbacks);
  if (module->dwfl == nullptr) return nullptr;
  dwfl_report_begin(module->dwfl);
  module->module = dwfl_report_offline(module->dwfl, path.filename().c_str(), path.c_str(), -1);
  dwfl_report_end(module->dwfl, nullptr, nullptr);
  if (module->module == nullptr) return nullptr;
  module->elf = dwfl_module_getelf(module->module, &module->bias);
  if (module->elf == nullptr) return nullptr;
  const unsigned char* bits = nullptr;
  GElf_Addr note_vaddr = 0;
  const int size = dwfl_module_build_id(module->module, &bits, &note_vaddr);
  if (size > 0) module->build_id = hex_bytes(bits, size);
  auto [it, added] = modules_.try_emplace(path.string() + '\n' + module->build_id);
  if (added || module->build_id.empty()) it->second = std::move(module);
  return it->second.get();
}

std::optional<SourcePlace> ModuleSymbols::at_file_offset(const std::filesystem::path& path, std::uint64_t file_offset) {
  Module* m = open(path);
  if (m == nullptr) return std::nullopt;
  const auto vaddr = m->vaddr_of(file_offset);
  if (!vaddr) return std::nullopt;
  return m->symtab_place(*vaddr + m->bias, *vaddr);
}

std::vector<SourcePlace> ModuleSymbols::places_at_file_offset(const std::filesystem::path& path,
                                                              std::uint64_t file_offset) {
  Module* m = open(path);
  if (m == nullptr) return {};
  if (auto known = m->places.find(file_offset); known != m->places.end()) return known->second;
  std::vector<SourcePlace> places;
  if (const auto vaddr = m->vaddr_of(file_offset, /*code=*/true)) {
    const Dwarf_Addr address = *vaddr + m->bias;
    places = dwarf_places(m->module, address, *vaddr);
    if (places.empty()) {
      if (auto place = m->symtab_place(address, *vaddr)) places.push_back(std::move(*place));
    } else if (places.back().function.empty()) {
      // A DWARF function without a name (rare: stripped of DW_AT_name).
      if (auto place = m->symtab_place(address, *vaddr)) places.back().function = place->function;
    }
  }
  m->places.emplace(file_offset, places);
  return places;
}

std::string ModuleSymbols::build_id(const std::filesystem::path& path) {
  Module* m = open(path);
  return m != nullptr ? m->build_id : std::string();
}

}  // namespace ftdiag::symbolize
