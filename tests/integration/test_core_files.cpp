// Real cores of real crashes, read back with read_core_stacks: the crashed
// thread first, its frames named with function and die.c:LINE, the signal
// and the fault address from the notes, every thread of a multi-threaded
// core, and cut or corrupted copies refused or read without a crash.
//
// The kernel writes the core where /proc/sys/kernel/core_pattern says; that
// setting is the whole system's, so it is only read, never changed. A plain
// relative pattern ("core", "core.%p") puts the core in the crasher's working
// directory, a fresh temporary one here. A pipe (systemd-coredump, apport)
// or an absolute folder keeps it from us: then the kernel-written cases skip
// and the gdb-written case (gdb stops the crasher at its fault and writes the
// core itself) still runs wherever gdb is installed.
#include <elf.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <set>
#include <string>

#include <doctest/doctest.h>

#include "skip.h"
#include "integration/harness.h"
#include "symbolize/core_stacks.h"

namespace ftdiag::itest {
namespace {

using symbolize::CoreStacks;
using symbolize::NativeFrame;

struct CrashCore {
  fs::path core;      // empty when none could be had
  std::string why;    // when empty: why not
  int pid = 0;
};

std::string core_pattern() {
  std::string pattern = read_text("/proc/sys/kernel/core_pattern");
  while (!pattern.empty() && (pattern.back() == '\n' || pattern.back() == ' ')) pattern.pop_back();
  return pattern;
}

// The only file the crash left in `dir`.
fs::path only_file_in(const fs::path& dir) {
  fs::path found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file()) found = entry.path();
  }
  return found;
}

// Runs the crasher in `dir` with no core size limit and returns the core
// the kernel wrote there.
CrashCore kernel_core(const fs::path& dir, const std::vector<std::string>& argv) {
  const std::string pattern = core_pattern();
  if (pattern.starts_with("|")) return {{}, "core_pattern pipes cores to a program: " + pattern};
  if (pattern.find('/') != std::string::npos) return {{}, "core_pattern writes cores to another folder: " + pattern};
  Launch launch{argv};
  launch.cwd = dir;
  launch.core_limit = RLIM_INFINITY;
  Process process(launch);
  const auto status = process.finish();
  REQUIRE_MESSAGE((status && WIFSIGNALED(*status) && WTERMSIG(*status) == SIGSEGV), describe_status(status));
  if (!WCOREDUMP(*status)) return {{}, "the kernel wrote no core (RLIMIT_CORE hard limit, or core_pattern " + pattern + ")"};
  const fs::path core = only_file_in(dir);
  REQUIRE_MESSAGE(!core.empty(), "dumped core, yet no file in ", dir);
  return {core, {}, process.pid()};
}

// The line of die.c (or another crasher source) that holds `text`.
int line_of(const std::string& source, const std::string& text) {
  std::ifstream in(fs::path(FTDIAG_SOURCE_DIR) / "tests/crashers" / source);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find(text) != std::string::npos) return number;
  }
  FAIL("no line of ", source, " holds ", text);
  return 0;
}

// Where the core's PT_NOTE segments end (a core of this machine: ELF64).
std::size_t end_of_notes(const std::string& core) {
  Elf64_Ehdr header;
  REQUIRE(core.size() >= sizeof header);
  std::memcpy(&header, core.data(), sizeof header);
  std::size_t end = header.e_phoff + std::size_t{header.e_phnum} * sizeof(Elf64_Phdr);
  for (int i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment;
    REQUIRE(header.e_phoff + (i + 1) * sizeof segment <= core.size());
    std::memcpy(&segment, core.data() + header.e_phoff + i * sizeof segment, sizeof segment);
    if (segment.p_type == PT_NOTE) end = std::max<std::size_t>(end, segment.p_offset + segment.p_filesz);
  }
  return end;
}

std::string function_of(const NativeFrame& frame) { return frame.resolved() ? frame.places.back().function : ""; }

std::string describe(const symbolize::CoreThread& thread) {
  std::string text = "thread " + std::to_string(thread.tid) + (thread.unwind_end.empty() ? "" : " (" + thread.unwind_end + ")") + ":\n";
  for (const auto& frame : thread.frames) {
    text += "  " + frame.module + "+" + std::to_string(frame.module_offset);
    for (const auto& place : frame.places) {
      text += " | " + place.function + " " + place.file + ":" + std::to_string(place.line.value_or(0));
    }
    text += "\n";
  }
  return text;
}

void check_null_dereference(const CoreStacks& stacks, int pid) {
  CHECK(stacks.signal == SIGSEGV);
  CHECK(stacks.fault_address == 0u);  // die writes through NULL
  CHECK(stacks.pid == pid);
  CHECK(stacks.crashed_tid == pid);
  CHECK(fs::equivalent(stacks.executable, crasher("die")));
  REQUIRE(stacks.threads.size() == 1);
  const auto& frames = stacks.threads[0].frames;
  INFO(describe(stacks.threads[0]));
  REQUIRE(frames.size() >= 3);
  REQUIRE(frames[0].resolved());
  CHECK_FALSE(frames[0].return_address);
  CHECK(function_of(frames[0]) == "crash_by_null_dereference");
  CHECK(frames[0].places.back().file.ends_with("/die.c"));
  CHECK(frames[0].places.back().line == line_of("die.c", "*pointer = 42;"));
  CHECK(frames[0].build_id.size() == 40);
  CHECK(function_of(frames[1]) == "run_mode");
  CHECK(frames[1].return_address);
  CHECK(frames[1].places.back().line == line_of("die.c", "return crash_by_null_dereference(NULL);"));
  CHECK(function_of(frames[2]) == "main");
  CHECK(std::any_of(stacks.maps.begin(), stacks.maps.end(), [](const auto& m) { return m.path.ends_with("/die"); }));
  CHECK_FALSE(stacks.truncated);
}

}  // namespace

TEST_CASE("core files: a segfault's core names the crashed thread's function and die.c line, the signal and the address") {
  TempDir tmp;
  auto crash = kernel_core(tmp.path(), crasher_argv("die", {"segv"}));
  if (crash.core.empty()) FTDIAG_SKIP(crash.why);
  auto stacks = symbolize::read_core_stacks(crash.core);
  REQUIRE_MESSAGE(stacks, stacks.missing().detail);
  check_null_dereference(*stacks, crash.pid);
}

TEST_CASE("core files: a multi-threaded core lists every thread, the one that crashed first") {
  TempDir tmp;
  constexpr int kParked = 5;
  auto crash = kernel_core(tmp.path(), crasher_argv("deep_stack", {"threads", std::to_string(kParked)}));
  if (crash.core.empty()) FTDIAG_SKIP(crash.why);
  auto stacks = symbolize::read_core_stacks(crash.core);
  REQUIRE_MESSAGE(stacks, stacks.missing().detail);
  std::string all;
  for (const auto& thread : stacks->threads) all += describe(thread);
  INFO(all);
  REQUIRE(stacks->threads.size() == kParked + 2);  // main, the parked ones, the crashing worker
  CHECK(stacks->pid == crash.pid);
  CHECK(stacks->crashed_tid != crash.pid);
  CHECK(stacks->threads[0].tid == stacks->crashed_tid);
  CHECK(stacks->signal == SIGSEGV);
  CHECK(stacks->fault_address == 0u);
  std::set<int> tids;
  int parked = 0;
  for (const auto& thread : stacks->threads) {
    tids.insert(thread.tid);
    CHECK_FALSE(thread.frames.empty());
    for (const auto& frame : thread.frames) parked += function_of(frame) == "park_here";
  }
  CHECK(tids.size() == stacks->threads.size());
  CHECK(tids.count(crash.pid) == 1);
  CHECK(parked == kParked);
  const auto& crashed = stacks->threads[0].frames;
  REQUIRE(crashed.size() >= 2);
  CHECK(function_of(crashed[0]) == "crash_at_the_bottom");
  CHECK(crashed[0].places.back().line == line_of("deep_stack.c", "/* the faulting line */"));
  CHECK(function_of(crashed[1]) == "crash_in_worker");
  auto main_thread = std::find_if(stacks->threads.begin(), stacks->threads.end(), [&](auto& t) { return t.tid == crash.pid; });
  REQUIRE(main_thread != stacks->threads.end());
  CHECK(std::any_of(main_thread->frames.begin(), main_thread->frames.end(), [](auto& f) { return function_of(f) == "main"; }));
}

TEST_CASE("core files: a deep recursion's return addresses name the line of each call") {
  TempDir tmp;
  constexpr int kDepth = 50;
  auto crash = kernel_core(tmp.path(), crasher_argv("deep_stack", {"recurse", std::to_string(kDepth)}));
  if (crash.core.empty()) FTDIAG_SKIP(crash.why);
  auto stacks = symbolize::read_core_stacks(crash.core);
  REQUIRE_MESSAGE(stacks, stacks.missing().detail);
  REQUIRE(stacks->threads.size() == 1);
  const auto& frames = stacks->threads[0].frames;
  INFO(describe(stacks->threads[0]));
  REQUIRE(frames.size() >= kDepth + 3);
  CHECK(function_of(frames[0]) == "crash_at_the_bottom");
  const int bottom = line_of("deep_stack.c", "if (depth == 0) return crash_at_the_bottom(pointer);");
  const int recursive = line_of("deep_stack.c", "/* the recursive call */");
  CHECK(function_of(frames[1]) == "descend");
  CHECK(frames[1].places.back().line == bottom);
  for (int i = 2; i <= kDepth + 1; ++i) {
    CHECK(function_of(frames[i]) == "descend");
    CHECK(frames[i].places.back().line == recursive);
  }
  CHECK(function_of(frames[kDepth + 2]) == "main");
}

TEST_CASE("core files: a core gdb wrote at the crash reads like the kernel's") {
  const fs::path gdb = "/usr/bin/gdb";
  if (!fs::exists(gdb)) FTDIAG_SKIP("gdb is not installed");
  TempDir tmp;
  const fs::path core = tmp / "gdb.core";
  Launch launch{{gdb.string(), "-batch", "-nx", "-ex", "run", "-ex", "generate-core-file " + core.string(), "-ex",
                 "info inferiors", "-ex", "kill", "--args", crasher("die").string(), "segv"}};
  auto outcome = run(launch, 60);
  if (!fs::exists(core)) FTDIAG_SKIP("gdb wrote no core (ptrace not permitted?): " + outcome.err.substr(0, 500));
  const int pid = pid_after(outcome.out, "process ");
  auto stacks = symbolize::read_core_stacks(core);
  REQUIRE_MESSAGE(stacks, stacks.missing().detail);
  check_null_dereference(*stacks, pid);
}

TEST_CASE("core files: a cut core is refused as truncated and a corrupted one is read without a crash") {
  TempDir tmp;
  auto crash = kernel_core(tmp.path(), crasher_argv("deep_stack", {"recurse", "20"}));
  if (crash.core.empty()) FTDIAG_SKIP(crash.why);
  const std::string bytes = read_text(crash.core);
  REQUIRE(bytes.size() > 8192);
  for (std::size_t size : {std::size_t{0}, std::size_t{63}, std::size_t{1000}, bytes.size() / 3, bytes.size() - 1}) {
    write_text(tmp / "cut", bytes.substr(0, size));
    auto stacks = symbolize::read_core_stacks(tmp / "cut");
    INFO("cut at ", size);
    REQUIRE_FALSE(stacks);
    if (size >= bytes.size() / 3) CHECK(stacks.missing().detail.find("truncated") != std::string::npos);
  }
  // Corrupt the memory after the headers and notes: the stacks the unwinder
  // walks and the ELF images it reads become garbage.
  const std::size_t memory = end_of_notes(bytes);
  REQUIRE(memory < bytes.size());
  std::uint32_t state = 12345;
  for (int round = 0; round < 20; ++round) {
    std::string corrupt = bytes;
    for (int i = 0; i < 5000; ++i) {
      state = state * 1103515245u + 12345u;
      corrupt[memory + state % (corrupt.size() - memory)] = static_cast<char>(state >> 16);
    }
    write_text(tmp / "corrupt", corrupt);
    auto stacks = symbolize::read_core_stacks(tmp / "corrupt", symbolize::StackBudget{.seconds = 5});
    REQUIRE_MESSAGE(stacks, stacks.missing().detail);
    CHECK_FALSE(stacks->threads.empty());
  }
}

TEST_CASE("core files: a --core that is not a core is said in the text report, not dropped") {
  TempDir tmp;
  write_text(tmp / "train.log", "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\nRuntimeError: boom\n");
  write_text(tmp / "core.1234", "not a core at all\n");
  auto outcome = run(Launch{{ftdiag_binary().string(), "analyze", (tmp / "train.log").string(), "--core", (tmp / "core.1234").string()}}, 60);
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  CHECK_MESSAGE(joined(outcome.out).find("the core file " + (tmp / "core.1234").string() + " could not be used") != std::string::npos, outcome.out);
  CHECK(joined(outcome.out).find("not an ELF file") != std::string::npos);
}

TEST_CASE("core files: a program replaced on disk since the crash is not named from the new file") {
  TempDir tmp;
  const fs::path program = tmp / "die";
  fs::copy_file(crasher("die"), program);
  fs::create_directory(tmp / "run");
  auto crash = kernel_core(tmp / "run", {program.string(), "segv"});
  if (crash.core.empty()) FTDIAG_SKIP(crash.why);
  fs::remove(program);
  fs::copy_file(crasher("deep_stack"), program);  // another build-id at the same path
  auto stacks = symbolize::read_core_stacks(crash.core);
  REQUIRE_MESSAGE(stacks, stacks.missing().detail);
  REQUIRE_FALSE(stacks->threads.empty());
  const auto& frame = stacks->threads[0].frames.at(0);
  INFO(describe(stacks->threads[0]));
  CHECK(frame.module == program.string());
  CHECK_FALSE(frame.resolved());
  CHECK(frame.build_id.size() == 40);
  symbolize::ModuleSymbols symbols;
  CHECK(frame.build_id != symbols.build_id(program));
}

TEST_CASE("core files: with no time left, frames keep their module and offset, and the core says it was cut short") {
  TempDir tmp;
  auto crash = kernel_core(tmp.path(), crasher_argv("die", {"segv"}));
  if (crash.core.empty()) FTDIAG_SKIP(crash.why);
  auto stacks = symbolize::read_core_stacks(crash.core, symbolize::StackBudget{.seconds = 0});
  REQUIRE_MESSAGE(stacks, stacks.missing().detail);
  CHECK(stacks->truncated);
  REQUIRE_FALSE(stacks->threads.empty());
  REQUIRE_FALSE(stacks->threads[0].frames.empty());
  const auto& frame = stacks->threads[0].frames[0];
  CHECK_FALSE(frame.resolved());
  CHECK(frame.module.ends_with("/die"));
  CHECK(frame.module_offset > 0);
}

}  // namespace ftdiag::itest

namespace ftdiag::itest {

// End to end: a job run with --no-probes (no crash record) dumps core in
// its working directory; `ftdiag analyze` of the job finds the core, unwinds
// it, and the verdict quotes the crashing function from it.
TEST_CASE("core files: analyze finds the job's core in its working directory and names the crash from it") {
  const std::string pattern = core_pattern();
  if (pattern.starts_with("|") || pattern.find('/') != std::string::npos) {
    FTDIAG_SKIP("core_pattern does not write cores into the working directory: " + pattern);
  }
  TempDir tmp;
  const auto work = tmp / "work";
  fs::create_directories(work);
  Launch launch{ftdiag_run(tmp / "job", crasher_argv("die", {"segv"}), {"--no-probes"})};
  launch.cwd = work;
  launch.core_limit = RLIM_INFINITY;
#ifdef FTDIAG_SANITIZED
  // AddressSanitizer sets RLIMIT_CORE to 0 in a sanitized ftdiag, and the job
  // would inherit it.
  launch.env["ASAN_OPTIONS"] = "disable_coredump=0";
#endif
  auto outcome = run(launch, 60);
  bool cored = false;
  for (const auto& entry : fs::directory_iterator(work)) cored = cored || entry.path().filename().string().starts_with("core");
  if (!cored) FTDIAG_SKIP("the kernel wrote no core (RLIMIT_CORE hard limit?)");

  auto analysis = analyze(tmp / "job");
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  const json& run_json = only_run(analysis.document);
  REQUIRE(run_json["crashes"].size() == 1);
  const auto& crash = run_json["crashes"][0];
  CHECK(crash["source"] == "core");
  CHECK(crash["signal"] == SIGSEGV);
  REQUIRE_FALSE(crash["frames"].empty());
  CHECK(crash["frames"][0]["function"] == "crash_by_null_dereference");
  CHECK(crash["frames"][0]["file"].get<std::string>().ends_with("die.c"));
  CHECK(crash["frames"][0]["line"] == line_of("die.c", "*pointer = 42;"));
  bool quoted = false;
  for (const auto& finding : analysis.report["findings"]) {
    for (const auto& support : finding["supporting"]) {
      quoted = quoted || support["says"].get<std::string>().find("crash_by_null_dereference (die.c:") != std::string::npos;
    }
  }
  CHECK(quoted);
}

}  // namespace ftdiag::itest
