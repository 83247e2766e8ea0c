// Core-file notes from arbitrary bytes: a core is written by a dying process
// and may be cut or corrupted anywhere. The first byte picks the note type,
// the rest is its descriptor; the parser must never read outside it, and
// NT_FILE's mappings must be whole ranges.
#include <elf.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "symbolize/core_notes.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static constexpr std::uint32_t kTypes[] = {NT_PRSTATUS, NT_PRPSINFO, NT_SIGINFO, NT_AUXV, NT_FILE};
  const std::uint32_t type = kTypes[data[0] % (sizeof kTypes / sizeof kTypes[0])];
  const std::string_view desc(reinterpret_cast<const char*>(data + 1), size - 1);
  ftdiag::symbolize::CoreNotes notes;
  ftdiag::symbolize::parse_core_note(notes, "CORE", type, desc);
  for (const auto& range : notes.files) {
    if (range.end < range.start) __builtin_trap();
  }
  (void)ftdiag::symbolize::executable_of(notes);
  for (const auto& range : ftdiag::symbolize::parse_nt_file(desc)) {
    if (range.end < range.start) __builtin_trap();
  }
  return 0;
}
