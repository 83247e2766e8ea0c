// Inputs that once cost GiBs or minutes cost bounded memory and time: a
// flood of kernel-log lines, /dev/zero named as a kernel log, a valid but
// enormous safetensors header, a shape of 2^63 elements of an unknown dtype,
// 100 MB of flat JSON given to judge, a core with an 8 GiB sparse note, a
// log with a 100 GB hole, a 100 MB console line. The inputs are made here,
// at test time; the memory tests run ftdiag in a memory cgroup (skipped
// where none can be made).
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elf.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>

#include <doctest/doctest.h>

#include "skip.h"
#include "integration/cgroup_sandbox.h"
#include "integration/harness.h"

namespace ftdiag::itest {
namespace {

#ifdef FTDIAG_SANITIZED
constexpr std::uint64_t kBound = 1024ull << 20;
#else
constexpr std::uint64_t kBound = 256ull << 20;
#endif

std::unique_ptr<MemoryCgroupSandbox> bounded_cgroup() {
  auto made = MemoryCgroupSandbox::create_any(kBound);
  if (auto* cgroup = std::get_if<std::unique_ptr<MemoryCgroupSandbox>>(&made)) return std::move(*cgroup);
  ftdiag::test::mark_skipped(std::get<std::string>(made));
  return nullptr;
}

Outcome run_in(MemoryCgroupSandbox* cgroup, std::vector<std::string> argv, double seconds = 60) {
  Launch launch{std::move(argv)};
  if (cgroup) launch.cgroup_procs = cgroup->procs_file();
  return run(launch, seconds);
}

// Every object with this "kind" anywhere in j.
void collect_kind(const json& j, std::string_view kind, std::vector<const json*>& out) {
  if (j.is_object()) {
    if (auto it = j.find("kind"); it != j.end() && it->is_string() && it->get<std::string>() == kind) out.push_back(&j);
    for (const auto& [key, value] : j.items()) collect_kind(value, kind, out);
  } else if (j.is_array()) {
    for (const auto& value : j) collect_kind(value, kind, out);
  }
}

std::vector<const json*> of_kind(const json& j, std::string_view kind) {
  std::vector<const json*> out;
  collect_kind(j, kind, out);
  return out;
}

}  // namespace

TEST_CASE("bounded inputs: 30 MB of Xid lines are streamed, the first and last kept and the rest counted") {
  auto cgroup = bounded_cgroup();
  if (!cgroup) return;
  TempDir tmp;
  const fs::path log = tmp / "kern.log";
  constexpr int kLines = 300000;
  {
    std::ofstream out(log);
    for (int i = 0; i < kLines; ++i) {
      out << "[" << 1000 + i / 100 << "." << 100000 + i % 100 << "] NVRM: Xid (PCI:0000:3b:00): 79, pid=" << 4000 + i % 1000
          << ", name=python, GPU has fallen off the bus.\n";
    }
  }
  auto outcome = run_in(cgroup.get(), {ftdiag_binary().string(), "analyze", "--format", "json", "--no-host-logs", log.string()});
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  auto report = json::parse(outcome.out);
  const auto xids = of_kind(report["evidence"], "gpu-xid");
  CHECK(xids.size() > 0);
  CHECK(xids.size() <= 5000);
  const auto left_out = of_kind(report["evidence"], "kernel-records-left-out");
  REQUIRE(left_out.size() == 1);
  const json& details = (*left_out.front())["details"];
  CHECK(details["of_kind"] == "gpu-xid");
  CHECK(std::stoull(details["count"].get<std::string>()) + xids.size() == kLines);
}

TEST_CASE("bounded inputs: a kernel log that is not a regular file is refused with exit 4, at once") {
  TempDir tmp;
  const fs::path fifo = tmp / "dmesg.fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  for (const std::string& file : {std::string("/dev/zero"), fifo.string(), tmp.path().string()}) {
    CAPTURE(file);
    const auto started = std::chrono::steady_clock::now();
    auto outcome = run(Launch{{ftdiag_binary().string(), "analyze", "--no-host-logs", "--kernel-log", file, tmp.path().string()}}, 20);
    CHECK_MESSAGE(outcome.exited_with(4), outcome.describe());
    CHECK(outcome.err.find("not a regular file") != std::string::npos);
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(10));
  }
}

TEST_CASE("bounded inputs: a valid 92 MB safetensors header of 1.3 million tensors is refused with the reason, in bounded memory") {
  auto cgroup = bounded_cgroup();
  if (!cgroup) return;
  TempDir tmp;
  const fs::path model = tmp / "model.safetensors";
  constexpr std::uint64_t kTensors = 1'300'000;
  std::string header = "{";
  header.reserve(96u << 20);
  char entry[128];
  for (std::uint64_t i = 0; i < kTensors; ++i) {
    const int n = std::snprintf(entry, sizeof entry, "%s\"t%llu.weight\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[%llu,%llu]}",
                                i ? "," : "", static_cast<unsigned long long>(i), static_cast<unsigned long long>(i),
                                static_cast<unsigned long long>(i + 1));
    header.append(entry, static_cast<std::size_t>(n));
  }
  header += "}";
  while (header.size() % 8) header += ' ';
  REQUIRE(header.size() < 100'000'000);  // valid by the format's own limit
  {
    std::ofstream out(model, std::ios::binary);
    const std::uint64_t length = header.size();
    for (int b = 0; b < 8; ++b) out.put(static_cast<char>((length >> (8 * b)) & 0xff));
    out << header;
    out << std::string(kTensors, '\0');
  }
  header = {};
  auto outcome = run_in(cgroup.get(), {ftdiag_binary().string(), "estimate", "--no-gpu", "--model", model.string(), "--format", "json"});
  // Weights that cannot be read and no config.json to size the model by: an unusable input (exit 4), the reason said.
  CHECK_MESSAGE(outcome.exited_with(4), outcome.describe());
  CHECK_MESSAGE(outcome.err.find("its weights cannot be read") != std::string::npos, outcome.describe());
  CHECK_MESSAGE(outcome.err.find("over the 32 MiB ftdiag parses") != std::string::npos, outcome.describe());
}

TEST_CASE("bounded inputs: 2^63 elements of an unknown dtype are refused, never estimated as 0 B") {
  TempDir tmp;
  const fs::path model = tmp / "model.safetensors";
  std::string header = R"({"w.weight":{"dtype":"Q9_NEW","shape":[9223372036854775808],"data_offsets":[0,8]}})";
  while (header.size() % 8) header += ' ';
  {
    std::ofstream out(model, std::ios::binary);
    const std::uint64_t length = header.size();
    for (int b = 0; b < 8; ++b) out.put(static_cast<char>((length >> (8 * b)) & 0xff));
    out << header << std::string(8, '\0');
  }
  auto outcome = run(Launch{{ftdiag_binary().string(), "estimate", "--no-gpu", "--model", model.string()}});
  CHECK_MESSAGE(outcome.exited_with(4), outcome.describe());
  CHECK_MESSAGE(outcome.err.find("its weights cannot be read") != std::string::npos, outcome.describe());
  CHECK_MESSAGE(outcome.err.find("of unknown dtype \"Q9_NEW\"") != std::string::npos, outcome.describe());
  CHECK_MESSAGE(outcome.err.find("more than its data_offsets' 8 bytes can hold") != std::string::npos, outcome.describe());
  CHECK(outcome.out.find(" 0 B") == std::string::npos);
  CHECK(outcome.out.find("-") == std::string::npos);
}

TEST_CASE("bounded inputs: judge refuses 100 MB of flat JSON with exit 4, in bounded memory") {
  auto cgroup = bounded_cgroup();
  if (!cgroup) return;
  TempDir tmp;
  const fs::path big = tmp / "evidence.json";
  {
    std::ofstream out(big);
    out << "[";
    const std::string chunk = [] {
      std::string c;
      for (int i = 0; i < 1 << 19; ++i) c += "0,";
      return c;
    }();
    for (int i = 0; i < 100; ++i) out << chunk;
    out << "0]";
  }
  auto outcome = run_in(cgroup.get(), {ftdiag_binary().string(), "judge", big.string()});
  CHECK_MESSAGE(outcome.exited_with(4), outcome.describe());
  CHECK(outcome.err.find("larger than") != std::string::npos);
  // Under the size limit but flat beyond any document: refused by its count of values.
  {
    std::ofstream out(big, std::ios::trunc);
    out << "[";
    for (int i = 0; i < 5'000'000; ++i) out << "0,";
    out << "0]";
  }
  auto counted = run_in(cgroup.get(), {ftdiag_binary().string(), "judge", big.string()});
  CHECK_MESSAGE(counted.exited_with(4), counted.describe());
  CHECK(counted.err.find("values") != std::string::npos);
}

TEST_CASE("bounded inputs: a core with an 8 GiB sparse note segment is refused at once") {
  TempDir tmp;
  const fs::path core = tmp / "core.1234";
  {
    Elf64_Ehdr eh{};
    std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_type = ET_CORE;
#if defined(__x86_64__)
    eh.e_machine = EM_X86_64;
#else
    eh.e_machine = EM_AARCH64;
#endif
    eh.e_version = EV_CURRENT;
    eh.e_phoff = sizeof eh;
    eh.e_ehsize = sizeof eh;
    eh.e_phentsize = sizeof(Elf64_Phdr);
    eh.e_phnum = 1;
    Elf64_Phdr note{};
    note.p_type = PT_NOTE;
    note.p_offset = 4096;
    note.p_filesz = 8ull << 30;
    note.p_align = 4;
    const int fd = ::open(core.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    REQUIRE(fd >= 0);
    REQUIRE(::write(fd, &eh, sizeof eh) == static_cast<ssize_t>(sizeof eh));
    REQUIRE(::write(fd, &note, sizeof note) == static_cast<ssize_t>(sizeof note));
    REQUIRE(::ftruncate(fd, static_cast<off_t>(4096 + note.p_filesz)) == 0);
    ::close(fd);
  }
  // The log makes the folder evidence; a --core that cannot be used is said
  // in the report, not dropped (docs/cli.md), and the analysis goes on.
  write_text(tmp / "train.log", "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\nRuntimeError: boom\n");
  const auto started = std::chrono::steady_clock::now();
  auto outcome = run(Launch{{ftdiag_binary().string(), "analyze", (tmp / "train.log").string(), "--no-host-logs", "--core",
                             core.string()}},
                     20);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(10));
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  CHECK_MESSAGE(joined(outcome.out).find("the core file " + core.string() + " could not be used") != std::string::npos, outcome.out);
  CHECK_MESSAGE(joined(outcome.out).find("a note segment (PT_NOTE) of 8589934592 bytes, over the 256 MiB") != std::string::npos,
                outcome.out);
}

// The largest "nul_bytes" anywhere in j.
std::uint64_t largest_nul_bytes(const json& j) {
  std::uint64_t most = 0;
  if (j.is_object()) {
    if (auto it = j.find("nul_bytes"); it != j.end() && it->is_number_unsigned()) most = it->get<std::uint64_t>();
    for (const auto& [key, value] : j.items()) most = std::max(most, largest_nul_bytes(value));
  } else if (j.is_array()) {
    for (const auto& value : j) most = std::max(most, largest_nul_bytes(value));
  }
  return most;
}

TEST_CASE("bounded inputs: a log with a 100 GB hole is scanned in seconds, the hole counted as NULs") {
  TempDir tmp;
  const fs::path log = tmp / "train.log";
  constexpr std::uint64_t kHole = 100ull << 30;
  std::string head;
  for (int step = 1; head.size() < 8192; ++step) head += "step " + std::to_string(step) + " loss 2.0\n";
  head.resize(8192, '\n');
  {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    REQUIRE(fd >= 0);
    REQUIRE(::write(fd, head.data(), head.size()) == static_cast<ssize_t>(head.size()));
    if (::ftruncate(fd, static_cast<off_t>(head.size() + kHole)) != 0) {
      ::close(fd);
      FTDIAG_SKIP("this file system cannot hold a 100 GB sparse file");
    }
    ::lseek(fd, 0, SEEK_END);
    const std::string tail = "\nTraceback (most recent call last):\ntorch.OutOfMemoryError: CUDA out of memory.\n";
    REQUIRE(::write(fd, tail.data(), tail.size()) == static_cast<ssize_t>(tail.size()));
    ::close(fd);
  }
  const auto started = std::chrono::steady_clock::now();
  auto outcome = run(Launch{{ftdiag_binary().string(), "analyze", "--format", "json", "--no-host-logs", log.string()}}, 60);
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(20));
  // The hole, to the file system's block: NULs, never read.
  const auto nuls = largest_nul_bytes(json::parse(outcome.out));
  CHECK(nuls >= kHole - 65536);
  CHECK(nuls <= kHole + 65536);
}

TEST_CASE("bounded inputs: a 100 MB log line is quoted by its head and tail with the bytes elided said") {
  TempDir tmp;
  const fs::path log = tmp / "train.log";
  {
    std::ofstream out(log);
    out << "step 1 loss 2.0\n" << "HEAD" << std::string(100u << 20, 'x') << "TAIL\n";
  }
  auto outcome = run(Launch{{ftdiag_binary().string(), "analyze", "--format", "json", "--no-host-logs", log.string()}}, 60);
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  CHECK(outcome.out.size() < (4u << 20));
  // Its last lines are read from the file's end: the line's end is quoted,
  // and its start, not read there, is said to be left out, never made up.
  CHECK(outcome.out.find("bytes elided] … xxxx") != std::string::npos);
  CHECK(outcome.out.find("xxxxTAIL") != std::string::npos);
  CHECK(outcome.out.find("xxxx … [") == std::string::npos);
}

}  // namespace ftdiag::itest
