// Core files that are not what they say: a hand-built core whose notes are
// read field by field, then every prefix of it, random corruptions of it,
// and files that are no core at all. None may crash or hang the reader.
#include <doctest/doctest.h>

#include <elf.h>
#include <signal.h>
#include <sys/procfs.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "symbolize/core_notes.h"
#include "symbolize/core_stacks.h"

using namespace ftdiag;
using namespace ftdiag::symbolize;
namespace fs = std::filesystem;

namespace {

#if defined(__aarch64__)
constexpr int kMachine = EM_AARCH64;
#else
constexpr int kMachine = EM_X86_64;
#endif

template <class T>
std::string bytes_of(const T& value) {
  return std::string(reinterpret_cast<const char*>(&value), sizeof value);
}

std::string pad4(std::string text) {
  text.resize((text.size() + 3) / 4 * 4, '\0');
  return text;
}

std::string note(std::uint32_t type, const std::string& desc) {
  Elf64_Nhdr header{5, static_cast<Elf64_Word>(desc.size()), type};
  return bytes_of(header) + pad4(std::string("CORE", 5)) + pad4(desc);
}

std::string prstatus(int tid) {
  elf_prstatus status{};
  status.pr_pid = tid;
  status.pr_cursig = SIGSEGV;
  return note(NT_PRSTATUS, bytes_of(status));
}

std::string nt_file() {
  std::string desc;
  for (std::uint64_t word : {std::uint64_t{2}, std::uint64_t{4096}, std::uint64_t{0x400000}, std::uint64_t{0x401000},
                             std::uint64_t{0}, std::uint64_t{0x7f0000000000}, std::uint64_t{0x7f0000002000},
                             std::uint64_t{3}}) {
    desc += bytes_of(word);
  }
  desc += std::string("/usr/bin/job\0/usr/lib/libjob.so\0", 33);
  return note(0x46494c45, desc);
}

// An ELF core with one PT_NOTE segment: two threads (4243 dumped the core),
// process 4242 "job", SIGSEGV at 0x1234, AT_PHDR in /usr/bin/job.
std::string synthetic_core() {
  elf_prpsinfo info{};
  info.pr_pid = 4242;
  std::strcpy(info.pr_fname, "job");
  siginfo_t signal{};
  signal.si_signo = SIGSEGV;
  signal.si_code = SEGV_MAPERR;
  signal.si_addr = reinterpret_cast<void*>(0x1234);
  std::string auxv;
  for (std::uint64_t word : {std::uint64_t{AT_PHDR}, std::uint64_t{0x400040}, std::uint64_t{AT_NULL}, std::uint64_t{0}}) {
    auxv += bytes_of(word);
  }
  const std::string notes = prstatus(4243) + note(NT_PRPSINFO, bytes_of(info)) + note(0x53494749, bytes_of(signal)) +
                            note(NT_AUXV, auxv) + nt_file() + prstatus(4242);
  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_ident[EI_VERSION] = EV_CURRENT;
  header.e_type = ET_CORE;
  header.e_machine = kMachine;
  header.e_version = EV_CURRENT;
  header.e_phoff = sizeof header;
  header.e_ehsize = sizeof header;
  header.e_phentsize = sizeof(Elf64_Phdr);
  header.e_phnum = 1;
  Elf64_Phdr segment{};
  segment.p_type = PT_NOTE;
  segment.p_offset = sizeof header + sizeof segment;
  segment.p_filesz = notes.size();
  segment.p_align = 4;
  return bytes_of(header) + bytes_of(segment) + notes;
}

struct TempFile {
  fs::path path;
  TempFile() {
    char pattern[] = "/tmp/ftdiag-core-XXXXXX";
    const int fd = ::mkstemp(pattern);
    REQUIRE(fd >= 0);
    ::close(fd);
    path = pattern;
  }
  ~TempFile() {
    std::error_code ec;
    fs::remove(path, ec);
  }
  void write(const std::string& bytes) const { std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes; }
};

}  // namespace

TEST_CASE("symbolize: a core's notes give its process, threads, signal, fault address and files") {
  TempFile file;
  file.write(synthetic_core());
  auto stacks = read_core_stacks(file.path);
  REQUIRE_MESSAGE(stacks, stacks.missing().detail);
  CHECK(stacks->pid == 4242);
  CHECK(stacks->signal == SIGSEGV);
  CHECK(stacks->fault_address == 0x1234);
  CHECK(stacks->crashed_tid == 4243);
  CHECK(stacks->executable == "/usr/bin/job");
  REQUIRE(stacks->maps.size() == 2);
  CHECK(stacks->maps[1].path == "/usr/lib/libjob.so");
  CHECK(stacks->maps[1].file_offset == 3 * 4096);
  REQUIRE(stacks->threads.size() == 2);
  CHECK(stacks->threads[0].tid == 4243);
  CHECK(stacks->threads[1].tid == 4242);
}

TEST_CASE("symbolize: every prefix of a core is refused as truncated or unreadable, never a crash") {
  const std::string core = synthetic_core();
  TempFile file;
  for (std::size_t size = 0; size < core.size(); ++size) {
    file.write(core.substr(0, size));
    auto stacks = read_core_stacks(file.path);
    INFO("size ", size);
    REQUIRE_FALSE(stacks);
    CHECK(stacks.missing().reason == MissingReason::unparseable);
    if (size >= 64 + 56) CHECK(stacks.missing().detail.find("truncated") != std::string::npos);
  }
}

TEST_CASE("symbolize: randomly corrupted cores are read or refused, never a crash") {
  const std::string core = synthetic_core();
  TempFile file;
  std::uint32_t state = 0x9e3779b9u;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  };
  int read = 0;
  for (int round = 0; round < 2000; ++round) {
    std::string corrupt = core;
    const int flips = 1 + static_cast<int>(next() % 8);
    for (int i = 0; i < flips; ++i) corrupt[next() % corrupt.size()] = static_cast<char>(next());
    file.write(corrupt);
    auto stacks = read_core_stacks(file.path);
    if (stacks) ++read;
  }
  MESSAGE("corrupted cores still read: ", read, " of 2000");
  CHECK(read > 0);  // most flips land in descriptors the reader tolerates
}

TEST_CASE("symbolize: files that are not cores are refused with the reason") {
  TempFile file;
  file.write("");
  CHECK(read_core_stacks(file.path).missing().detail.find("not an ELF file") != std::string::npos);
  file.write(std::string(4096, '\x7f'));
  CHECK(read_core_stacks(file.path).missing().detail.find("not an ELF file") != std::string::npos);
  auto program = read_core_stacks("/proc/self/exe");
  REQUIRE_FALSE(program);
  CHECK(program.missing().detail.find("not a core") != std::string::npos);
  auto absent = read_core_stacks("/nonexistent/core");
  REQUIRE_FALSE(absent);
  CHECK(absent.missing().reason == MissingReason::not_present);
  CHECK(read_core_stacks("/tmp").missing().detail.find("not a regular file") != std::string::npos);
}

TEST_CASE("symbolize: NT_FILE with a count past its size or a name without its end is empty") {
  std::string desc;
  for (std::uint64_t word : {std::uint64_t{1} << 60, std::uint64_t{4096}}) desc += bytes_of(word);
  CHECK(parse_nt_file(desc).empty());
  desc.clear();
  for (std::uint64_t word : {1, 4096, 0, 4096, 0}) desc += bytes_of(std::uint64_t(word));
  CHECK(parse_nt_file(desc + "/no/terminator").empty());
  REQUIRE(parse_nt_file(desc + std::string("/x\0", 3)).size() == 1);
  CHECK(parse_nt_file("").empty());
}
