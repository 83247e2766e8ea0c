#include "symbolize/core_file.h"

#include <fcntl.h>
#include <gelf.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace ftdiag::symbolize {

namespace {

#if defined(__x86_64__)
constexpr int kMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr int kMachine = EM_AARCH64;
#else
constexpr int kMachine = EM_NONE;
#endif

// A core's notes hold a few KiB per thread and the mapped files' names: tens
// of MiB for the largest processes. A note segment larger than this is
// damage or a trap (a sparse 8 GiB one would be read page by page), and the
// core is refused with the reason.
constexpr std::uint64_t kMaxNoteSegmentBytes = std::uint64_t{256} << 20;

Missing unparseable(const std::filesystem::path& path, std::string_view why) {
  return Missing{MissingReason::unparseable, fmt::format("{}: {}", path.string(), why)};
}

// Every segment must lie inside the file: the kernel writes the notes
// first and the memory after, so a core cut by RLIMIT_CORE or a full disk
// is short of its last segments.
std::optional<std::string> truncation(Elf* elf, std::uint64_t file_size) {
  std::size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) return "its program headers cannot be read";
  std::uint64_t needed = 0;
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Phdr header;
    if (gelf_getphdr(elf, static_cast<int>(i), &header) == nullptr) return "its program headers cannot be read";
    if (header.p_offset > UINT64_MAX - header.p_filesz) return "a segment ends past 2^64";
    needed = std::max<std::uint64_t>(needed, header.p_offset + header.p_filesz);
  }
  if (needed <= file_size) return std::nullopt;
  return fmt::format("truncated: {} bytes of the {} its segments need (the core size limit, ulimit -c, or a full "
                     "disk cut it short)", file_size, needed);
}

std::optional<std::string> oversized_notes(Elf* elf) {
  std::size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) return std::nullopt;
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Phdr header;
    if (gelf_getphdr(elf, static_cast<int>(i), &header) == nullptr || header.p_type != PT_NOTE) continue;
    if (header.p_filesz > kMaxNoteSegmentBytes) {
      return fmt::format("a note segment (PT_NOTE) of {} bytes, over the {} MiB a core's notes may take here: damaged, "
                         "or not a core the kernel wrote",
                         header.p_filesz, kMaxNoteSegmentBytes >> 20);
    }
  }
  return std::nullopt;
}

void read_notes(Elf* elf, CoreNotes& notes) {
  std::size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) return;
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Phdr header;
    if (gelf_getphdr(elf, static_cast<int>(i), &header) == nullptr || header.p_type != PT_NOTE) continue;
    const Elf_Type type = header.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR;
    Elf_Data* data = elf_getdata_rawchunk(elf, header.p_offset, header.p_filesz, type);
    if (data == nullptr) continue;
    GElf_Nhdr note;
    std::size_t name_at = 0, desc_at = 0;
    for (std::size_t at = 0; (at = gelf_getnote(data, at, &note, &name_at, &desc_at)) > 0;) {
      const char* bytes = static_cast<const char*>(data->d_buf);
      const std::string_view name(bytes + name_at, strnlen(bytes + name_at, note.n_namesz));
      parse_core_note(notes, name, note.n_type, std::string_view(bytes + desc_at, note.n_descsz));
    }
  }
}

}  // namespace

Fact<std::unique_ptr<CoreFile>> CoreFile::open(const std::filesystem::path& path) {
  std::unique_ptr<CoreFile> core(new CoreFile());
  core->fd_.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!core->fd_.valid()) return missing_from_errno(errno, "open the core " + path.string());
  struct stat status {};
  if (::fstat(core->fd_.get(), &status) != 0) return missing_from_errno(errno, "stat the core " + path.string());
  if (!S_ISREG(status.st_mode)) return unparseable(path, "not a regular file");
  elf_version(EV_CURRENT);
  core->elf_ = elf_begin(core->fd_.get(), ELF_C_READ_MMAP, nullptr);
  if (core->elf_ == nullptr || elf_kind(core->elf_) != ELF_K_ELF) return unparseable(path, "not an ELF file");
  GElf_Ehdr header;
  if (gelf_getehdr(core->elf_, &header) == nullptr) return unparseable(path, "its ELF header cannot be read");
  if (header.e_type != ET_CORE) {
    return unparseable(path, fmt::format("an ELF file of type {}, not a core", header.e_type));
  }
  if (header.e_machine != kMachine || gelf_getclass(core->elf_) != ELFCLASS64) {
    return unparseable(path, fmt::format("a core of another machine (e_machine {})", header.e_machine));
  }
  if (auto why = truncation(core->elf_, static_cast<std::uint64_t>(status.st_size))) return unparseable(path, *why);
  if (auto why = oversized_notes(core->elf_)) return unparseable(path, *why);
  read_notes(core->elf_, core->notes_);
  if (core->notes_.thread_ids.empty()) return unparseable(path, "no thread in its notes (NT_PRSTATUS)");
  return core;
}

CoreFile::~CoreFile() {
  if (elf_ != nullptr) elf_end(elf_);
}

}  // namespace ftdiag::symbolize
