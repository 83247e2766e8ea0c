// The test binary's own mappings, and where an address of it lies: real
// modules to symbolize, nothing mocked.
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "parse/probes/proc_maps.h"
#include "symbolize/native_stack.h"

namespace ftdiag::symbolize::test {

inline std::vector<MappedRange> self_maps() {
  std::ifstream in("/proc/self/maps");
  std::stringstream text;
  text << in.rdbuf();
  std::vector<MappedRange> ranges;
  for (auto& entry : parse::parse_maps(text.str())) {
    ranges.push_back(MappedRange{entry.start, entry.end, entry.offset, entry.path + (entry.deleted ? " (deleted)" : "")});
  }
  return ranges;
}

template <class F>
std::uint64_t address_of(F* function) {
  return reinterpret_cast<std::uint64_t>(reinterpret_cast<void*>(function));
}

// The mapping of this process that holds `address`; an empty range when none.
inline MappedRange mapping_holding(std::uint64_t address) {
  for (auto& range : self_maps()) {
    if (address >= range.start && address < range.end) return range;
  }
  return {};
}

// The file the dynamic linker loaded `symbol` from.
inline std::string module_of(const void* symbol) {
  Dl_info info{};
  if (dladdr(symbol, &info) == 0 || info.dli_fname == nullptr) return {};
  return info.dli_fname;
}

}  // namespace ftdiag::symbolize::test
