// The crash probe (probes/crash/, docs/probes.md "The crash record" and
// "Chaining") preloaded into real crashing programs, directly rather than
// through ftdiag: each crash leaves a whole record in FTDIAG_RUN_DIR, and the
// process dies exactly as it does without the probe (the same wait status,
// the kernel's own "segfault at" line, the job's own handlers and Python's
// faulthandler output).
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <thread>

#include <doctest/doctest.h>

#include "integration/harness.h"
#include "integration/kernel_log.h"
#include "parse/probes/crash_record.h"
#include "skip.h"

namespace ftdiag::itest {
namespace {

fs::path crash_probe() { return FTDIAG_CRASH_PROBE; }
fs::path malloc_guard() { return FTDIAG_MALLOC_GUARD; }

// What the tests read back from a record (the format is docs/probes.md's).
struct CrashRecord {
  std::vector<std::string> lines;
  std::map<std::string, std::string> fields;  // the first value of each single-valued key
  std::map<std::string, std::uint64_t> registers;
  std::vector<std::uint64_t> frames;
  std::string frames_end;                     // "19 complete"
  std::vector<std::string> maps;              // the lines between maps and maps-end
};

std::uint64_t number(const std::string& text) { return std::stoull(text, nullptr, 0); }

CrashRecord parse_record(const std::string& text) {
  CrashRecord record;
  std::istringstream in(text);
  bool in_maps = false;
  for (std::string line; std::getline(in, line);) {
    record.lines.push_back(line);
    if (in_maps) {
      if (line == "maps-end") in_maps = false;
      else record.maps.push_back(line);
      continue;
    }
    auto space = line.find(' ');
    std::string key = line.substr(0, space);
    std::string value = space == std::string::npos ? "" : line.substr(space + 1);
    if (key == "maps") in_maps = true;
    else if (key == "frame") record.frames.push_back(number(value));
    else if (key == "frames-end") record.frames_end = value;
    else if (key == "register") record.registers[value.substr(0, value.find(' '))] = number(value.substr(value.find(' ') + 1));
    else record.fields.emplace(key, value);
  }
  return record;
}

// The path of the mapping in the record's maps that holds address, or "".
std::string module_of(const CrashRecord& record, std::uint64_t address) {
  for (const auto& line : record.maps) {
    std::istringstream fields(line);
    std::string range, perms, offset, device, inode, path;
    fields >> range >> perms >> offset >> device >> inode >> path;
    auto dash = range.find('-');
    if (dash == std::string::npos) continue;
    std::uint64_t low = std::stoull(range.substr(0, dash), nullptr, 16);
    std::uint64_t high = std::stoull(range.substr(dash + 1), nullptr, 16);
    if (address >= low && address < high) return path;
  }
  return "";
}

bool ends_with_name(const std::string& path, const std::string& name) {
  return path.size() >= name.size() + 1 && path.ends_with("/" + name);
}

// A crasher's run: its pid (the record's name), status and output.
struct Ran {
  int pid = -1;
  std::optional<int> status;
  std::string out;
  std::string err;
};

Ran run_process(const Launch& launch) {
  Process process(launch);
  Ran ran;
  ran.pid = process.pid();
  ran.status = process.finish();
  ran.out = process.out();
  ran.err = process.err();
  return ran;
}

// argv run with the probe (after `extra_preload`, as ftdiag appends it) and
// the run folder `dir`; nullopt dir: FTDIAG_RUN_DIR unset.
Launch probed(const std::vector<std::string>& argv, std::optional<fs::path> dir, const std::string& extra_preload = "") {
  Launch launch{argv};
  launch.env["LD_PRELOAD"] = (extra_preload.empty() ? "" : extra_preload + ":") + crash_probe().string();
  launch.env["FTDIAG_RUN_DIR"] = dir ? std::optional<std::string>(dir->string()) : std::nullopt;
  return launch;
}

Launch unprobed(const std::vector<std::string>& argv) {
  Launch launch{argv};
  launch.env["LD_PRELOAD"] = std::nullopt;
  return launch;
}

bool died_of(const std::optional<int>& status, int signal) {
  return status && WIFSIGNALED(*status) && WTERMSIG(*status) == signal;
}

// The crash files in dir.
std::vector<fs::path> crash_files(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().starts_with("crash.")) files.push_back(entry.path());
  }
  return files;
}

// A probed crash of `argv` in a fresh run folder, next to the same program
// run without the probe.
struct ProbedCrash {
  TempDir dir;
  Ran with_probe;
  Ran without_probe;
  CrashRecord record;
};

// Runs both, checks what every crash must show, and returns the record.
void crash(ProbedCrash& c, const std::vector<std::string>& argv, int signal) {
  c.without_probe = run_process(unprobed(argv));
  c.with_probe = run_process(probed(argv, c.dir.path()));
  INFO("with the probe: ", describe_status(c.with_probe.status), "; stderr: ", c.with_probe.err);
  REQUIRE(died_of(c.without_probe.status, signal));
  // The same death, to the bit: signal and core flag.
  CHECK(c.with_probe.status == c.without_probe.status);
  auto files = crash_files(c.dir.path());
  REQUIRE(files.size() == 1);
  const fs::path expected = c.dir / ("crash." + std::to_string(c.with_probe.pid) + ".txt");
  REQUIRE(files[0] == expected);
  struct stat info {};
  REQUIRE(::stat(expected.c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0600);
  c.record = parse_record(read_text(expected));
  const auto& r = c.record;
  INFO("record:\n", read_text(expected));
  REQUIRE(!r.lines.empty());
  CHECK(r.lines.front() == "ftdiag-crash 1");
  CHECK(r.lines.back() == "end");
  CHECK(r.fields.at("signal") == std::to_string(signal));
  CHECK(r.fields.at("pid") == std::to_string(c.with_probe.pid));
  CHECK(r.fields.count("time") == 1);
  CHECK(!r.maps.empty());
  REQUIRE(!r.frames.empty());
  CHECK(r.frames_end == std::to_string(r.frames.size()) + (r.frames.size() == 256 ? " truncated" : " complete"));
  // ftdiag's own reader (src/parse/probes/crash_record.h) takes it whole.
  auto parsed = parse::parse_crash_record(read_text(expected));
  REQUIRE(parsed);
  CHECK(parsed->whole);
  CHECK(parsed->maps_whole);
  CHECK(parsed->problems.empty());
  CHECK(parsed->frames == r.frames);
}

std::string crash_cases() { return crasher("crash_cases").string(); }

// The record's fault details: code and address.
void check_fault(const CrashRecord& r, int code, std::uint64_t address) {
  CHECK(r.fields.at("code") == std::to_string(code));
  CHECK(number(r.fields.at("address")) == address);
}

// A frame of a fault: the first is the faulting instruction, in `module`; at
// least three frames reach main and beyond.
void check_frames(const CrashRecord& r, const std::string& module) {
  CHECK(r.frames.size() >= 3);
  CHECK(r.frames_end.ends_with(" complete"));
  INFO("first frame's mapping: ", module_of(r, r.frames[0]));
  CHECK(ends_with_name(module_of(r, r.frames[0]), module));
#if defined(__x86_64__)
  CHECK(r.registers.at("rip") == r.frames[0]);
#endif
}

}  // namespace

TEST_CASE("crash_probe: a segfault in a shared library is recorded, and the process dies of it as without the probe") {
  ProbedCrash c;
  crash(c, {crash_cases(), "lib-segv"}, SIGSEGV);
  const auto& r = c.record;
  check_fault(r, SEGV_MAPERR, 0);
  check_frames(r, "libcrashfaults.so");
  CHECK(r.fields.at("tid") == std::to_string(c.with_probe.pid));
  CHECK(r.fields.at("thread") == "crash_cases");
  // The main thread's stack holds the stack pointer at the fault.
  REQUIRE(r.fields.count("stack") == 1);
  std::istringstream bounds(r.fields.at("stack"));
  std::string low, high;
  bounds >> low >> high;
#if defined(__x86_64__)
  CHECK(number(low) <= r.registers.at("rsp"));
  CHECK(r.registers.at("rsp") < number(high));
#endif
  // A frame of the program calls into the library.
  bool program_frame = false;
  for (auto frame : r.frames) program_frame |= ends_with_name(module_of(r, frame), "crash_cases");
  CHECK(program_frame);
}

TEST_CASE("crash_probe: the kernel still logs the segfault, at the instruction the record names") {
  std::ifstream trace("/proc/sys/debug/exception-trace");
  int enabled = 0;
  if (!(trace >> enabled) || enabled != 1) FTDIAG_SKIP("the kernel does not log faults here (debug.exception-trace)");
  if (auto log = read_kernel_log(); std::holds_alternative<std::string>(log)) {
    FTDIAG_SKIP("the kernel log cannot be read here: " + std::get<std::string>(log));
  }
  // The kernel rate-limits these lines (printk_ratelimit, 10 per 5 s): a
  // missing line only fails the test when the same crash without the probe,
  // right after, is logged.
  auto line_of = [](int pid) -> std::optional<std::string> {
    auto log = read_kernel_log();
    for (const auto& record : std::get<std::vector<KernelRecord>>(log)) {
      if (record.message.starts_with("crash_cases[" + std::to_string(pid) + "]: segfault at 0 ")) return record.message;
    }
    return std::nullopt;
  };
  // The crash tests before this one may have used up the rate limiter's
  // burst: then this waits for its window to pass (the kernel's own clock,
  // /proc/sys/kernel/printk_ratelimit seconds) and tries again.
  int window_s = 5;
  if (std::ifstream limit("/proc/sys/kernel/printk_ratelimit"); !(limit >> window_s) || window_s < 0 || window_s > 60) window_s = 5;
  TempDir dir;
  Ran ran;
  std::optional<std::string> line;
  for (int attempt = 0; attempt < 3 && !line; ++attempt) {
    fs::remove_all(dir.path());
    fs::create_directories(dir.path());
    ran = run_process(probed({crash_cases(), "lib-segv"}, dir.path()));
    REQUIRE(died_of(ran.status, SIGSEGV));
    line = line_of(ran.pid);
    if (line) break;
    Ran control = run_process(unprobed({crash_cases(), "lib-segv"}));
    if (line_of(control.pid)) FAIL("the kernel logged the segfault without the probe but not with it");
    std::this_thread::sleep_for(std::chrono::milliseconds(window_s * 1000 + 200));
  }
  if (!line) FTDIAG_SKIP("the kernel's fault lines stayed rate-limited over three windows");
  auto record = parse_record(read_text(dir / ("crash." + std::to_string(ran.pid) + ".txt")));
  REQUIRE(!record.frames.empty());
  std::ostringstream ip;
  ip << " ip " << std::hex << std::setw(16) << std::setfill('0') << record.frames[0] << " ";
  INFO("kernel: ", *line);
  CHECK(line->find(ip.str()) != std::string::npos);
  CHECK(line->find(" in libcrashfaults.so[") != std::string::npos);
}

TEST_CASE("crash_probe: a stack overflow on a second thread is recorded on its alternate stack") {
  ProbedCrash c;
  crash(c, {crash_cases(), "thread-overflow"}, SIGSEGV);
  const auto& r = c.record;
  CHECK(r.fields.at("tid") != std::to_string(c.with_probe.pid));
  // The runaway recursion fills the record's frames.
  CHECK(r.frames_end == "256 truncated");
  CHECK(ends_with_name(module_of(r, r.frames[0]), "crash_cases"));
  // It faulted in the guard page just below the thread's stack, as noted at
  // the thread's start.
  REQUIRE(r.fields.count("stack") == 1);
  std::uint64_t low = number(r.fields.at("stack").substr(0, r.fields.at("stack").find(' ')));
  std::uint64_t address = number(r.fields.at("address"));
  CHECK(address < low);
  CHECK(address >= low - (1u << 20));
}

TEST_CASE("crash_probe: abort() is recorded and raised again") {
  ProbedCrash c;
  crash(c, {crash_cases(), "abort"}, SIGABRT);
  const auto& r = c.record;
  CHECK(r.fields.at("code") == std::to_string(SI_TKILL));
  CHECK(r.frames.size() >= 3);
  CHECK(r.frames_end.ends_with(" complete"));
  bool program_frame = false;
  for (auto frame : r.frames) program_frame |= ends_with_name(module_of(r, frame), "crash_cases");
  CHECK(program_frame);
}

TEST_CASE("crash_probe: a bus error from a truncated mapping is recorded with the page's address") {
  ProbedCrash c;
  crash(c, {crash_cases(), "bus"}, SIGBUS);
  const auto& r = c.record;
  auto at = c.with_probe.out.find("page ");
  REQUIRE(at != std::string::npos);
  check_fault(r, BUS_ADRERR, number(c.with_probe.out.substr(at + 5, c.with_probe.out.find('\n', at) - at - 5)));
  check_frames(r, "crash_cases");
}

TEST_CASE("crash_probe: an integer division by zero is recorded at the dividing instruction") {
  ProbedCrash c;
  crash(c, {crash_cases(), "fpe"}, SIGFPE);
  const auto& r = c.record;
  REQUIRE(!r.frames.empty());
  check_fault(r, FPE_INTDIV, r.frames[0]);
  check_frames(r, "crash_cases");
}

TEST_CASE("crash_probe: of threads that fault at once, exactly one is recorded, whole") {
  // Whatever the interleaving: one record (the first crash), not cut short by
  // another thread's death, and the process dies of the fault. (On two cores
  // the others rarely fault while it is written, so this does not prove that
  // they wait for it.)
  ProbedCrash c;
  crash(c, {crash_cases(), "threads-segv"}, SIGSEGV);
  CHECK(c.record.fields.at("tid") != std::to_string(c.with_probe.pid));
  check_fault(c.record, SEGV_MAPERR, 0);
  check_frames(c.record, "libcrashfaults.so");
}

TEST_CASE("crash_probe: a SIGSEGV that was sent, not a fault, is recorded and raised again") {
  ProbedCrash c;
  crash(c, {crash_cases(), "sent-segv"}, SIGSEGV);
  CHECK(c.record.fields.at("code") == std::to_string(SI_TKILL));
}

TEST_CASE("crash_probe: the job's own SIGSEGV handler sees its own view, runs after the record, and the process dies") {
  ProbedCrash c;
  crash(c, {crash_cases(), "own-handler"}, SIGSEGV);
  // sigaction's oldact is what the job would have seen without the probe.
  CHECK(c.with_probe.out == "previous SIGSEGV action: default flags=0\n");
  CHECK(c.with_probe.out == c.without_probe.out);
  CHECK(c.without_probe.err.find("own handler ran; no record yet") != std::string::npos);
  CHECK(c.with_probe.err.find("own handler ran; the record exists") != std::string::npos);
  check_fault(c.record, SEGV_MAPERR, 0);
}

TEST_CASE("crash_probe: without FTDIAG_RUN_DIR nothing is recorded, and the job's handler still runs") {
  Ran ran = run_process(probed({crash_cases(), "own-handler"}, std::nullopt));
  INFO("stderr: ", ran.err);
  CHECK(died_of(ran.status, SIGSEGV));
  CHECK(ran.err.find("own handler ran; no record yet") != std::string::npos);
}

TEST_CASE("crash_probe: Python's faulthandler still prints its traceback, and Python dies by SIGSEGV") {
  const std::vector<std::string> argv = {"/usr/bin/python3", "-X", "faulthandler", "-c", "import ctypes; ctypes.string_at(0)"};
  if (!fs::exists(argv[0])) FTDIAG_SKIP("no /usr/bin/python3 here");
  ProbedCrash c;
  crash(c, argv, SIGSEGV);
  for (const std::string& printed : {std::string("Fatal Python error: Segmentation fault"), std::string("File \"<string>\", line 1")}) {
    CHECK_MESSAGE(c.without_probe.err.find(printed) != std::string::npos, c.without_probe.err);
    CHECK_MESSAGE(c.with_probe.err.find(printed) != std::string::npos, c.with_probe.err);
  }
  check_fault(c.record, SEGV_MAPERR, 0);
  CHECK(c.record.frames.size() >= 3);
}

TEST_CASE("crash_probe: the handler allocates nothing (a guard ends a process that allocates in a handler with 99)") {
  // The guard works: a job's handler that calls malloc, chained by the probe
  // on its alternate stack, is caught.
  {
    TempDir dir;
    Ran control = run_process(probed({crash_cases(), "handler-mallocs"}, dir.path(), malloc_guard().string()));
    INFO("stderr: ", control.err);
    REQUIRE(control.status);
    CHECK((WIFEXITED(*control.status) && WEXITSTATUS(*control.status) == 99));
  }
  // The probe itself, on the main thread and on a second one: the crash is
  // recorded whole and the process dies of it, never by the guard.
  for (const std::string mode : {"lib-segv", "thread-overflow", "abort"}) {
    CAPTURE(mode);
    TempDir dir;
    Ran ran = run_process(probed({crash_cases(), mode}, dir.path(), malloc_guard().string()));
    INFO("status: ", describe_status(ran.status), "; stderr: ", ran.err);
    CHECK(died_of(ran.status, mode == "abort" ? SIGABRT : SIGSEGV));
    auto files = crash_files(dir.path());
    REQUIRE(files.size() == 1);
    CHECK(parse_record(read_text(files[0])).lines.back() == "end");
  }
}

}  // namespace ftdiag::itest
