// The crash record the in-process crash handler (probes/crash/) writes when a
// process of the job faults: signal, fault address, registers, the raw
// return addresses its unwinder found, and the process's memory map, as text
// (docs/probes.md, "The crash record"):
//
//   ftdiag-crash 1
//   signal 11
//   code 1
//   address 0x0
//   pid 4242
//   ...
//   frame 0x55d0c0de1234
//   frames-end 23 complete
//   maps
//   <the text of /proc/self/maps>
//   maps-end
//   end
//
// A record cut short (a second fault inside the handler, a full disk) reads
// up to where it stops and says so. Pure; never throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "parse/probes/proc_maps.h"

namespace ftdiag::parse {

inline constexpr int kCrashRecordVersion = 1;

struct CrashRecord {
  int version = 0;
  std::optional<int> signal;
  std::optional<int> code;                  // si_code
  std::optional<std::uint64_t> address;     // si_addr
  std::optional<int> pid;
  std::optional<int> tid;
  std::string thread;                       // the thread's name (PR_GET_NAME)
  std::optional<double> time;               // seconds since the epoch
  std::optional<std::pair<std::uint64_t, std::uint64_t>> stack;  // the crashing thread's stack [low, high)
  std::vector<std::pair<std::string, std::uint64_t>> registers;  // in the record's order
  // The loader's variables as the process started ("env NAME VALUE"):
  // LD_LIBRARY_PATH, LD_PRELOAD.
  std::vector<std::pair<std::string, std::string>> environment;
  std::vector<std::uint64_t> frames;        // innermost first: the faulting pc, then return addresses
  std::optional<std::uint64_t> frames_declared;  // "frames-end N"
  std::string unwind;                       // "complete", "truncated", "failed"; empty when not said
  std::vector<MapsEntry> maps;
  bool maps_whole = false;                  // "maps-end" was reached
  bool whole = false;                       // "end" was reached
  std::vector<std::string> problems;        // lines that did not read, and what was cut short

  std::optional<std::uint64_t> register_value(std::string_view name) const;
};

// nullopt when the text does not start with the record's magic line, or
// names a version this reader does not know (said in `why_not`).
std::optional<CrashRecord> parse_crash_record(std::string_view text, std::string* why_not = nullptr);

}  // namespace ftdiag::parse
