#include "collect/python_env/elf_needed.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "base/unique_fd.h"

namespace ftdiag::collect {
namespace {

constexpr std::uint64_t kMaxDynamicBytes = 1 << 20;
constexpr std::size_t kMaxNeededEntries = 4096;
constexpr std::uint64_t kMaxNameBytes = 512;

bool libelf_ready() {
  static const bool ready = elf_version(EV_CURRENT) != EV_NONE;
  return ready;
}

Missing unparseable(const std::filesystem::path& path, const std::string& what) {
  return Missing{MissingReason::unparseable, path.string() + ": " + what};
}

std::string libelf_error() { return elf_errmsg(-1) ? elf_errmsg(-1) : "unknown libelf error"; }

// The Elf handle and the descriptor it reads, released together.
class ElfFile {
 public:
  ElfFile(UniqueFd fd, std::uint64_t size) : fd_(std::move(fd)), size_(size) {
    elf_ = elf_begin(fd_.get(), ELF_C_READ, nullptr);
  }
  ~ElfFile() {
    if (elf_ != nullptr) elf_end(elf_);
  }
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;

  Elf* get() const { return elf_; }
  std::uint64_t size() const { return size_; }
  // True when [offset, offset + length) lies inside the file as it was opened.
  bool holds(std::uint64_t offset, std::uint64_t length) const {
    return offset <= size_ && length <= size_ - offset;
  }

 private:
  UniqueFd fd_;
  std::uint64_t size_ = 0;
  Elf* elf_ = nullptr;
};

struct Segments {
  std::optional<GElf_Phdr> dynamic;
  std::vector<GElf_Phdr> loads;
};

Fact<Segments> read_segments(const ElfFile& file, const std::filesystem::path& path) {
  std::size_t count = 0;
  if (elf_getphdrnum(file.get(), &count) != 0) return unparseable(path, "program headers: " + libelf_error());
  Segments segments;
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Phdr header;
    if (gelf_getphdr(file.get(), static_cast<int>(i), &header) == nullptr) {
      return unparseable(path, "truncated: program header " + std::to_string(i) + ": " + libelf_error());
    }
    if (header.p_type == PT_DYNAMIC && !segments.dynamic) segments.dynamic = header;
    if (header.p_type == PT_LOAD) segments.loads.push_back(header);
  }
  return segments;
}

struct DynamicEntries {
  std::vector<std::uint64_t> needed;  // offsets into the string table
  std::optional<std::uint64_t> strtab;  // an address
  std::optional<std::uint64_t> strsz;
};

Fact<DynamicEntries> read_dynamic(const ElfFile& file, const GElf_Phdr& dynamic, const std::filesystem::path& path) {
  if (!file.holds(dynamic.p_offset, dynamic.p_filesz)) {
    return unparseable(path, "truncated: the dynamic segment ends past the end of the file");
  }
  const std::uint64_t size = std::min(dynamic.p_filesz, kMaxDynamicBytes);
  Elf_Data* data = elf_getdata_rawchunk(file.get(), static_cast<int64_t>(dynamic.p_offset), size, ELF_T_DYN);
  if (data == nullptr) return unparseable(path, "dynamic segment: " + libelf_error());
  DynamicEntries entries;
  GElf_Dyn entry;
  for (int i = 0; gelf_getdyn(data, i, &entry) != nullptr && entry.d_tag != DT_NULL; ++i) {
    if (entry.d_tag == DT_NEEDED && entries.needed.size() < kMaxNeededEntries) entries.needed.push_back(entry.d_un.d_val);
    if (entry.d_tag == DT_STRTAB) entries.strtab = entry.d_un.d_ptr;
    if (entry.d_tag == DT_STRSZ) entries.strsz = entry.d_un.d_val;
  }
  return entries;
}

// DT_STRTAB is an address; the segment that loads it says where it is in the file.
std::optional<std::uint64_t> file_offset_of(const std::vector<GElf_Phdr>& loads, std::uint64_t address) {
  for (const auto& load : loads) {
    if (address >= load.p_vaddr && address - load.p_vaddr < load.p_filesz) {
      return load.p_offset + (address - load.p_vaddr);
    }
  }
  return std::nullopt;
}

// One name of the string table, read alone: NUL-terminated within the
// table, the file and kMaxNameBytes, else nothing.
std::optional<std::string> read_name(const ElfFile& file, std::uint64_t table, std::uint64_t table_size,
                                     std::uint64_t offset) {
  if (offset >= table_size || table > file.size() || offset >= file.size() - table) return std::nullopt;
  const std::uint64_t start = table + offset;
  const std::uint64_t length = std::min({kMaxNameBytes, table_size - offset, file.size() - start});
  Elf_Data* data = elf_getdata_rawchunk(file.get(), static_cast<int64_t>(start), length, ELF_T_BYTE);
  if (data == nullptr || data->d_buf == nullptr) return std::nullopt;
  const char* bytes = static_cast<const char*>(data->d_buf);
  const void* end = std::memchr(bytes, '\0', data->d_size);
  if (end == nullptr) return std::nullopt;
  return std::string(bytes, static_cast<const char*>(end));
}

Fact<std::vector<std::string>> needed_names(const ElfFile& file, const Segments& segments,
                                            const std::filesystem::path& path) {
  auto entries = read_dynamic(file, *segments.dynamic, path);
  if (!entries) return entries.missing();
  if (entries->needed.empty()) return std::vector<std::string>{};
  if (!entries->strtab) return unparseable(path, "DT_NEEDED without DT_STRTAB");
  auto table = file_offset_of(segments.loads, *entries->strtab);
  if (!table) return unparseable(path, "DT_STRTAB lies in no loaded segment");
  // Without DT_STRSZ the table's end is unknown: the file's end bounds it.
  const std::uint64_t table_size = entries->strsz.value_or(file.size());
  std::vector<std::string> names;
  for (std::uint64_t offset : entries->needed) {
    if (auto name = read_name(file, *table, table_size, offset)) names.push_back(std::move(*name));
  }
  return names;
}

Fact<ElfFile*> open_checked(const std::filesystem::path& path, std::optional<ElfFile>& holder) {
  // O_NONBLOCK: a FIFO named *.so must not block the reader.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd.valid()) return missing_from_errno(errno, "open " + path.string());
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) return missing_from_errno(errno, "stat " + path.string());
  if (!S_ISREG(info.st_mode)) return Missing{MissingReason::failed, path.string() + " is not a regular file"};
  if (!libelf_ready()) return Missing{MissingReason::failed, "libelf: " + libelf_error()};
  holder.emplace(std::move(fd), static_cast<std::uint64_t>(info.st_size));
  if (holder->get() == nullptr || elf_kind(holder->get()) != ELF_K_ELF) return unparseable(path, "not an ELF file");
  return &*holder;
}

}  // namespace

Fact<std::vector<std::string>> read_elf_needed(const std::filesystem::path& path) {
  std::optional<ElfFile> holder;
  auto file = open_checked(path, holder);
  if (!file) return file.missing();
  auto segments = read_segments(**file, path);
  if (!segments) return segments.missing();
  if (!segments->dynamic) return std::vector<std::string>{};  // static: needs nothing
  return needed_names(**file, *segments, path);
}

}  // namespace ftdiag::collect
