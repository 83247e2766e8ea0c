// A native stack in stages (raw addresses -> module + file offset -> named
// places), for both a crash record's frames (docs/probes.md) and a core's.
//
// Return addresses are adjusted by one here and nowhere else
// (lookup_address): a return address points after its call, which may be the
// first instruction of the next function or the next line, so the call itself
// is looked up at address - 1. The faulting or current instruction of a
// thread, and the interrupted instruction past a signal frame, are looked up
// as they are.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "symbolize/module_symbols.h"

namespace ftdiag::symbolize {

// One mapping of a process (a line of /proc/PID/maps, or an NT_FILE entry of
// a core). `path` is as the kernel wrote it: a file, "[vdso]", "" (anonymous).
struct MappedRange {
  std::uint64_t start = 0, end = 0, file_offset = 0;
  std::string path;
  // The build-id of the file that was mapped (a core's memory holds it), hex;
  // empty when unknown. When the file now at `path` has another one, it was
  // replaced since (a pip upgrade): its frames are left unnamed, not named
  // wrongly.
  std::string build_id;
};

// One address as an unwinder gave it.
struct RawFrame {
  std::uint64_t address = 0;
  bool return_address = false;  // false: the instruction itself (frame 0, or the frame a signal interrupted)
};

struct NativeFrame {
  std::uint64_t address = 0;          // as recorded (a return address for frames after the first)
  std::string module;                 // path of the mapped file; empty when no mapping holds it
  std::uint64_t module_offset = 0;    // file offset of the looked-up address (after the one adjustment)
  std::string build_id;               // hex, empty when unknown (the mapping's when it says, else the file's)
  std::vector<SourcePlace> places;    // innermost inlined call first, the real function last; empty when unresolved
  bool return_address = false;        // looked up at address - 1
  bool resolved() const { return !places.empty(); }
};

// Wall-clock budget for naming one stack (one core's threads together);
// frames past it keep their module and offset, unnamed.
struct StackBudget {
  double seconds = 2.0;
};

// The address to look up for a frame: the one place where a return address
// becomes address - 1.
std::uint64_t lookup_address(const RawFrame& frame);

// Frame 0 is the faulting or current instruction, every later frame a return
// address; with `first_is_return_address`, frame 0 too.
std::vector<RawFrame> raw_frames(const std::vector<std::uint64_t>& addresses, bool first_is_return_address = false);

// Names a crash record's frames (frame 0 as is, later frames at address - 1)
// through the maps of the process. Addresses outside every mapping, or in
// mappings of no readable file, give unresolved frames; never throws except
// std::bad_alloc.
std::vector<NativeFrame> symbolize_stack(const std::vector<std::uint64_t>& addresses,
                                         const std::vector<MappedRange>& maps,
                                         ModuleSymbols& symbols, StackBudget budget = {});

// The same for frames whose kinds the unwinder knows (a core's), against a
// deadline shared by several stacks. `out_of_time` when frames were left
// unnamed because the deadline passed.
struct NamedStack {
  std::vector<NativeFrame> frames;
  bool out_of_time = false;
};
NamedStack symbolize_frames(const std::vector<RawFrame>& frames, const std::vector<MappedRange>& maps,
                            ModuleSymbols& symbols, std::chrono::steady_clock::time_point deadline);

std::chrono::steady_clock::time_point deadline_after(StackBudget budget);

}  // namespace ftdiag::symbolize
