// ModuleSymbols on real modules of this process: one without DWARF named
// from its symbol table, glibc's separate debug file found by build-id, and
// mappings and addresses that name nothing.
#include <doctest/doctest.h>

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>

#include "skip.h"
#include "symbolize/native_stack.h"
#include "unit/symbolize/self_maps.h"

using namespace ftdiag::symbolize;
using namespace ftdiag::symbolize::test;
namespace fs = std::filesystem;

namespace {

bool has_separate_debug_file(const std::string& build_id) {
  if (build_id.size() < 3) return false;
  std::error_code ec;
  return fs::exists("/usr/lib/debug/.build-id/" + build_id.substr(0, 2) + "/" + build_id.substr(2) + ".debug", ec);
}

struct TempDir {
  fs::path path;
  TempDir() {
    char pattern[] = "/tmp/ftdiag-symbolize-XXXXXX";
    REQUIRE(::mkdtemp(pattern) != nullptr);
    path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

TEST_CASE("symbolize: a library without DWARF is named from its symbol table") {
  // libstdc++ as distributions ship it: a symbol table, no .debug_info.
  void* terminate = dlsym(RTLD_DEFAULT, "_ZSt9terminatev");
  REQUIRE(terminate != nullptr);
  const std::string module = module_of(terminate);
  ModuleSymbols symbols;
  const std::string build_id = symbols.build_id(module);
  if (has_separate_debug_file(build_id)) FTDIAG_SKIP("libstdc++ has a debug file here: " + build_id);
  const auto address = reinterpret_cast<std::uint64_t>(terminate);
  auto frames = symbolize_stack({address}, self_maps(), symbols);
  REQUIRE(frames.size() == 1);
  CHECK(fs::equivalent(frames[0].module, module));
  REQUIRE(frames[0].places.size() == 1);
  CHECK(frames[0].places[0].function == "std::terminate()");
  CHECK(frames[0].places[0].file.empty());
  CHECK_FALSE(frames[0].places[0].line);
  CHECK_FALSE(frames[0].places[0].inlined);
}

TEST_CASE("symbolize: glibc's separate debug file is found by build-id under /usr/lib/debug") {
  void* function = dlsym(RTLD_DEFAULT, "abs");  // stdlib/abs.c, not a syscall stub of assembly
  REQUIRE(function != nullptr);
  const std::string module = module_of(function);
  ModuleSymbols symbols;
  const std::string build_id = symbols.build_id(module);
  REQUIRE(build_id.size() == 40);
  if (!has_separate_debug_file(build_id)) FTDIAG_SKIP("no debug file for " + module + " (install libc6-dbg)");
  auto frames = symbolize_stack({reinterpret_cast<std::uint64_t>(function)}, self_maps(), symbols);
  REQUIRE(frames.size() == 1);
  REQUIRE(frames[0].resolved());
  INFO("function: ", frames[0].places.back().function);
  CHECK(frames[0].places.back().function == "abs");
  CHECK(frames[0].places[0].file.ends_with("abs.c"));
  CHECK(frames[0].places[0].line);
  CHECK(frames[0].build_id == build_id);
}

TEST_CASE("symbolize: at_file_offset still names a fault's instruction with the symbol table and the line table") {
  const std::uint64_t address = address_of(&has_separate_debug_file);
  const auto range = mapping_holding(address);
  REQUIRE_FALSE(range.path.empty());
  ModuleSymbols symbols;
  auto place = symbols.at_file_offset(range.path, address - range.start + range.file_offset);
  REQUIRE(place);
  CHECK(place->function.find("has_separate_debug_file") != std::string::npos);
  CHECK(place->file.ends_with("test_module_symbols.cpp"));
  CHECK(place->line);
}

TEST_CASE("symbolize: mappings and addresses that name nothing give unresolved frames") {
  TempDir tmp;
  const fs::path not_elf = tmp.path / "not-elf";
  std::ofstream(not_elf) << "this is not an ELF file\n";
  const fs::path fifo = tmp.path / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const std::vector<MappedRange> maps = {
      {0x1000, 0x2000, 0, "/nonexistent/libgone.so"},
      {0x2000, 0x3000, 0, not_elf.string()},
      {0x3000, 0x4000, 0, fifo.string()},  // opening it would block
      {0x4000, 0x5000, 0, "/dev/zero"},
      {0x5000, 0x6000, 0, "/"},
      {0x6000, 0x7000, 0x7fffffffffff0000, self},  // an offset past the file's end
      {0x7000, 0x8000, 0, "[vdso]"},
      {0x8000, 0x9000, 0, ""},
      {0xa000, 0x9000, 0, self},  // end before start
      {UINT64_MAX - 0x1000, UINT64_MAX, UINT64_MAX, self},
  };
  const std::vector<std::uint64_t> addresses = {0,      1,      0x1000, 0x2001, 0x3002, 0x4003, 0x5004,
                                                0x6005, 0x7006, 0x8007, 0x9008, 0xa000, UINT64_MAX - 1, UINT64_MAX};
  ModuleSymbols symbols;
  auto frames = symbolize_stack(addresses, maps, symbols);
  REQUIRE(frames.size() == addresses.size());
  for (std::size_t i = 0; i < frames.size(); ++i) {
    INFO("frame ", i, " at ", addresses[i], " in ", frames[i].module);
    CHECK_FALSE(frames[i].resolved());
    CHECK(frames[i].address == addresses[i]);
  }
  CHECK(frames[0].module.empty());
  CHECK(frames[3].module == not_elf.string());  // 0x2001 - 1
  CHECK(frames[8].module == "[vdso]");
  CHECK(symbols.build_id(fifo).empty());
  CHECK(symbols.places_at_file_offset("/nonexistent", 0).empty());
  CHECK_FALSE(symbols.at_file_offset(not_elf, 0));
}

TEST_CASE("symbolize: a module replaced on disk is read again") {
  TempDir tmp;
  const fs::path copy = tmp.path / "module";
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  fs::copy_file(self, copy);
  ModuleSymbols symbols;
  const std::uint64_t address = address_of(&has_separate_debug_file);
  const auto range = mapping_holding(address);
  const std::uint64_t offset = address - range.start + range.file_offset;
  REQUIRE_FALSE(symbols.places_at_file_offset(copy, offset).empty());
  const std::string build_id = symbols.build_id(copy);
  CHECK(build_id == symbols.build_id(self));
  fs::remove(copy);
  std::ofstream(copy) << "replaced by something that is not ELF\n";
  CHECK(symbols.places_at_file_offset(copy, offset).empty());
  CHECK(symbols.build_id(copy).empty());
}
