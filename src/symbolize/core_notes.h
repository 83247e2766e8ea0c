// What the notes of an ELF core file (PT_NOTE) say about the dead process,
// parsed from their bytes: threads (NT_PRSTATUS), the signal (NT_SIGINFO),
// the process (NT_PRPSINFO), the auxiliary vector (NT_AUXV) and the mapped
// files (NT_FILE). See the kernel's fs/binfmt_elf.c (fill_note_info) and
// core(5).
//
// Only cores of this machine's own word size and byte order are parsed (the
// note structures are read with this machine's <sys/procfs.h> layout):
// parse_core_note ignores a descriptor too short for its structure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symbolize/native_stack.h"

namespace ftdiag::symbolize {

struct CoreNotes {
  int pid = 0;                      // NT_PRPSINFO pr_pid (the thread group)
  std::string command;              // NT_PRPSINFO pr_fname (the comm, 15 characters at most)
  std::vector<int> thread_ids;      // NT_PRSTATUS pr_pid, in note order: the kernel writes the dumping thread first
  int signal = 0;                   // NT_SIGINFO si_signo, else the first NT_PRSTATUS pr_cursig
  int signal_code = 0;              // NT_SIGINFO si_code
  std::optional<std::uint64_t> fault_address;  // si_addr, for a fault the kernel raised (SEGV, BUS, ILL, FPE, TRAP)
  std::optional<std::uint64_t> program_headers;  // AT_PHDR: where the executable's program headers were mapped
  std::optional<std::uint64_t> entry;            // AT_ENTRY
  std::vector<MappedRange> files;   // NT_FILE, in the note's order
  bool has_siginfo = false;
};

// Applies one note (owner `name` without its NUL, type, descriptor bytes) to
// `notes`; notes of other types or owners than "CORE" are ignored.
void parse_core_note(CoreNotes& notes, std::string_view name, std::uint32_t type, std::string_view desc);

// NT_FILE alone: count, page size, then (start, end, page offset) triples,
// then the NUL-terminated paths. Empty when malformed.
std::vector<MappedRange> parse_nt_file(std::string_view desc);

// The executable: the NT_FILE mapping holding AT_PHDR (else AT_ENTRY); empty
// when the notes cannot tell.
std::string executable_of(const CoreNotes& notes);

}  // namespace ftdiag::symbolize
