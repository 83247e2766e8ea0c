// Every thread of a core file, as `eu-stack --core` would show it: unwound
// with libdwfl from the registers in the core's notes and the stack memory it
// holds, named through symbolize_frames (so the one return-address
// adjustment stays in native_stack.cpp) with the mappings the core lists.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/fact.h"
#include "symbolize/native_stack.h"

namespace ftdiag::symbolize {

struct CoreThread {
  int tid = 0;
  std::vector<NativeFrame> frames;  // innermost first
  std::string unwind_end;           // why unwinding stopped early, in words; empty when it reached the outermost frame
};

struct CoreStacks {
  std::string executable;           // the NT_FILE mapping holding AT_PHDR; the comm when the core lists no files
  int pid = 0;
  int signal = 0;                   // from NT_SIGINFO, else NT_PRSTATUS, of the thread that crashed
  std::optional<std::uint64_t> fault_address;  // si_addr from NT_SIGINFO, for a fault the kernel raised
  int crashed_tid = 0;              // the thread that dumped the core (the kernel writes it first)
  std::vector<MappedRange> maps;    // from NT_FILE (file-backed mappings only), with the build-ids the core holds
  std::vector<CoreThread> threads;  // crashed thread first, then in the core's order
  bool truncated = false;           // the budget ended before every frame was named
};

// A Missing when the file cannot be opened, is not a core of this machine, or
// is truncated (see CoreFile::open). Frames are named with `symbols`' modules
// as they are on disk now. Never throws except std::bad_alloc; garbage in a
// well-formed core gives unresolved frames or short stacks.
Fact<CoreStacks> read_core_stacks(const std::filesystem::path& core, ModuleSymbols& symbols, StackBudget budget = {});
Fact<CoreStacks> read_core_stacks(const std::filesystem::path& core, StackBudget budget = {});

}  // namespace ftdiag::symbolize
