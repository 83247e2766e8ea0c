// /proc/PID/maps, as the kernel prints it (fs/proc/task_mmu.c: show_map_vma):
//
//   55d0c0de0000-55d0c0de2000 r-xp 00001000 fd:01 1234567    /usr/bin/python3.11
//   7ffd9a3a2000-7ffd9a3c3000 rw-p 00000000 00:00 0          [stack]
//
// The path runs to the end of the line and may hold spaces (and " (deleted)"
// for a file removed since it was mapped). Pure; never throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ftdiag::parse {

struct MapsEntry {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::string permissions;  // "r-xp"
  std::uint64_t offset = 0; // file offset of `start`
  std::uint64_t inode = 0;
  std::string path;         // empty for anonymous memory; "[stack]", "[heap]", "[vdso]", ...
  bool deleted = false;     // the kernel's " (deleted)" suffix, removed from `path`

  bool executable() const { return permissions.size() > 2 && permissions[2] == 'x'; }
  bool holds(std::uint64_t address) const { return address >= start && address < end; }
  bool operator==(const MapsEntry&) const = default;
};

// One line (a trailing newline is allowed); nullopt when it is not a maps line.
std::optional<MapsEntry> parse_maps_line(std::string_view line);

// Every line that parses, in order; others are skipped.
std::vector<MapsEntry> parse_maps(std::string_view text);

// The entry holding `address`, or null. `maps` in the kernel's order (sorted).
const MapsEntry* mapping_of(const std::vector<MapsEntry>& maps, std::uint64_t address);

}  // namespace ftdiag::parse
