#include "symbolize/core_notes.h"

#include <elf.h>
#include <signal.h>
#include <sys/procfs.h>

#include <cstddef>
#include <cstring>

namespace ftdiag::symbolize {

namespace {

// NT_SIGINFO and NT_FILE are newer than some <elf.h>.
constexpr std::uint32_t kNtSiginfo = 0x53494749;
constexpr std::uint32_t kNtFile = 0x46494c45;

template <class T>
bool read_at(std::string_view bytes, std::size_t offset, T& value) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return true;
}

void parse_prstatus(CoreNotes& notes, std::string_view desc) {
  pid_t tid = 0;
  short cursig = 0;
  if (!read_at(desc, offsetof(struct elf_prstatus, pr_pid), tid)) return;
  notes.thread_ids.push_back(tid);
  const bool first = notes.thread_ids.size() == 1;
  if (first && !notes.has_siginfo && read_at(desc, offsetof(struct elf_prstatus, pr_cursig), cursig)) {
    notes.signal = cursig;
  }
}

void parse_prpsinfo(CoreNotes& notes, std::string_view desc) {
  pid_t pid = 0;
  if (read_at(desc, offsetof(struct elf_prpsinfo, pr_pid), pid)) notes.pid = pid;
  constexpr std::size_t kAt = offsetof(struct elf_prpsinfo, pr_fname);
  constexpr std::size_t kSize = sizeof(elf_prpsinfo::pr_fname);
  if (desc.size() >= kAt + kSize) {
    const std::string_view name = desc.substr(kAt, kSize);
    notes.command = name.substr(0, name.find('\0'));
  }
}

// si_addr means the faulting address only for a fault the kernel raised
// (si_code > 0); SI_KERNEL (a general protection fault) carries 0.
bool has_fault_address(int signal, int code) {
  const bool fault = signal == SIGSEGV || signal == SIGBUS || signal == SIGILL || signal == SIGFPE || signal == SIGTRAP;
  return fault && code > 0 && code != SI_KERNEL;
}

void parse_siginfo(CoreNotes& notes, std::string_view desc) {
  int signo = 0, code = 0;
  if (!read_at(desc, offsetof(siginfo_t, si_signo), signo)) return;
  if (!read_at(desc, offsetof(siginfo_t, si_code), code)) return;
  if (notes.has_siginfo) return;  // one per core (the dumping thread's); keep the first
  notes.has_siginfo = true;
  notes.signal = signo;
  notes.signal_code = code;
  void* address = nullptr;
  if (has_fault_address(signo, code) && read_at(desc, offsetof(siginfo_t, si_addr), address)) {
    notes.fault_address = reinterpret_cast<std::uintptr_t>(address);
  }
}

void parse_auxv(CoreNotes& notes, std::string_view desc) {
  for (std::size_t at = 0; at + 2 * sizeof(std::uint64_t) <= desc.size(); at += 2 * sizeof(std::uint64_t)) {
    std::uint64_t key = 0, value = 0;
    read_at(desc, at, key);
    read_at(desc, at + sizeof key, value);
    if (key == AT_NULL) break;
    if (key == AT_PHDR) notes.program_headers = value;
    if (key == AT_ENTRY) notes.entry = value;
  }
}

}  // namespace

std::vector<MappedRange> parse_nt_file(std::string_view desc) {
  std::uint64_t count = 0, page_size = 0;
  if (!read_at(desc, 0, count) || !read_at(desc, 8, page_size)) return {};
  constexpr std::uint64_t kTriple = 3 * sizeof(std::uint64_t);
  if (count > (desc.size() - 16) / kTriple) return {};
  std::vector<MappedRange> ranges(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint64_t page_offset = 0;
    read_at(desc, 16 + i * kTriple, ranges[i].start);
    read_at(desc, 16 + i * kTriple + 8, ranges[i].end);
    read_at(desc, 16 + i * kTriple + 16, page_offset);
    if (ranges[i].end < ranges[i].start) return {};  // no kernel writes this: a corrupted note
    ranges[i].file_offset = page_offset * page_size;
  }
  std::string_view names = desc.substr(16 + count * kTriple);
  for (auto& range : ranges) {
    const auto end = names.find('\0');
    if (end == std::string_view::npos) return {};
    range.path = names.substr(0, end);
    names.remove_prefix(end + 1);
  }
  return ranges;
}

void parse_core_note(CoreNotes& notes, std::string_view name, std::uint32_t type, std::string_view desc) {
  if (name != "CORE") return;  // "LINUX" notes are register sets, numbered apart
  switch (type) {
    case NT_PRSTATUS: return parse_prstatus(notes, desc);
    case NT_PRPSINFO: return parse_prpsinfo(notes, desc);
    case NT_AUXV: return parse_auxv(notes, desc);
    case kNtSiginfo: return parse_siginfo(notes, desc);
    case kNtFile: notes.files = parse_nt_file(desc); return;
    default: return;
  }
}

std::string executable_of(const CoreNotes& notes) {
  for (auto address : {notes.program_headers, notes.entry}) {
    if (!address) continue;
    for (const auto& range : notes.files) {
      if (*address >= range.start && *address < range.end) return range.path;
    }
  }
  return {};
}

}  // namespace ftdiag::symbolize
