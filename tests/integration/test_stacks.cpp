// Crashes under the real `ftdiag run`, with the probes it puts into the job
// (docs/probes.md), read back by `ftdiag analyze --format json`: the crash
// record (hosts[0].runs[0].crashes[], docs/evidence.md "CRASH") names the
// function and file:line, native and Python frames together, and the verdict
// quotes them; the probes' environment keeps the user's own LD_PRELOAD and
// sitecustomize, and --no-probes puts nothing into the job.
//
// The crashers are tests/crashers/crash_cases.c (+ lib/faults.c),
// two_libraries.c (+ gpu/fake_cudart.c, two fake CUDA runtimes) and
// native_crash.py, run with Debian's /usr/bin/python3.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "skip.h"
#include "integration/harness.h"

namespace ftdiag::itest {
namespace {


fs::path source_file(const std::string& relative) { return fs::path(FTDIAG_SOURCE_DIR) / relative; }

// The 1-based line of `file` that contains `marker`; fails the test when none does.
int line_of(const fs::path& file, const std::string& marker) {
  std::ifstream in(file);
  REQUIRE_MESSAGE(in, "cannot read ", file.string());
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.find(marker) != std::string::npos) return number;
  }
  FAIL("no line of ", file.string(), " contains ", marker);
  return -1;
}

// The crash.*.txt files of a run folder.
std::vector<fs::path> crash_files(const fs::path& run_dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(run_dir)) {
    const auto name = entry.path().filename().string();
    if (name.starts_with("crash.") && name.ends_with(".txt")) files.push_back(entry.path());
  }
  return files;
}

fs::path only_run_folder(const fs::path& job_dir) {
  auto folders = run_folders(job_dir);
  REQUIRE(folders.size() == 1);
  return folders[0];
}

// The finding behind the verdict (its rule); fails the test when there is none.
json& verdict_finding(json& report) {
  INFO("verdict: ", report["verdict"].dump());
  for (auto& finding : report["findings"]) {
    if (finding["rule"] == report["verdict"]["rule"]) return finding;
  }
  FAIL("no finding carries the verdict's rule");
  return report["findings"];  // not reached
}

// What the verdict's finding says in support, one item a line.
std::string support_text(json& report) {
  std::string text;
  for (auto& item : verdict_finding(report)["supporting"]) {
    if (item["says"].is_string()) text += item["says"].get<std::string>() + "\n";
  }
  return text;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string text_of(json& value) { return value.is_string() ? value.get<std::string>() : std::string(); }

bool path_named(json& value, const std::string& name) {
  const auto path = text_of(value);
  return path == name || path.ends_with("/" + name);
}

// The crasher's own death without ftdiag: the ground truth ftdiag must mirror.
Outcome without_ftdiag(const std::vector<std::string>& argv) {
  Launch launch{argv};
  launch.env["LD_PRELOAD"] = std::nullopt;
  return run(launch);
}

// `ftdiag run` of argv dies as argv dies without it: by SIGSEGV, and (ftdiag
// itself) without a core.
void check_dies_of_segv_as_without_ftdiag(const Outcome& outcome, const std::vector<std::string>& argv) {
  auto alone = without_ftdiag(argv);
  REQUIRE_MESSAGE(alone.killed_by(SIGSEGV), "without ftdiag: ", alone.describe());
  REQUIRE_MESSAGE(outcome.killed_by(SIGSEGV), outcome.describe());
  CHECK_FALSE(WCOREDUMP(*outcome.status));
}

// The job's death as the evidence has it, and its single crash record.
json& job_crash(json& run) {
  CHECK(run["job_status"]["signal"] == SIGSEGV);
  auto& crashes = run["crashes"];
  INFO("crashes: ", crashes.dump().substr(0, 4000));
  REQUIRE(crashes.is_array());
  REQUIRE(crashes.size() == 1);
  auto& crash = crashes[0];
  CHECK(crash["source"] == "crash-probe");
  CHECK(crash["signal"] == SIGSEGV);
  CHECK(crash["pid"] == run["started"]["job_pid"]);
  REQUIRE(crash["frames"].is_array());
  REQUIRE(!crash["frames"].empty());
  return crash;
}

// Runs `argv` under `ftdiag run` in tmp/job; returns ftdiag's outcome.
Outcome run_under_ftdiag(const TempDir& tmp, const std::vector<std::string>& argv,
                         const std::vector<std::string>& options = {},
                         const std::map<std::string, std::optional<std::string>>& env = {}) {
  Launch launch{ftdiag_run(tmp / "job", argv, options)};
  launch.env = env;
  launch.cwd = tmp.path();  // a core the job may dump lands here
  return run(launch, 60);
}

// Analysis of tmp/job, required to succeed.
Analysis analyzed(const TempDir& tmp) {
  auto analysis = analyze(tmp / "job");
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  REQUIRE(analysis.report.is_object());
  return analysis;
}

// The text a job printed between "[" after `key` and the next "]", from the
// run's console.log; nullopt when no line has it.
std::optional<std::string> printed_value(const fs::path& run_dir, const std::string& key) {
  const auto console = read_text(run_dir / "console.log");
  const auto at = console.find(key + "=[");
  if (at == std::string::npos) return std::nullopt;
  const auto start = at + key.size() + 2;
  const auto end = console.find(']', start);
  if (end == std::string::npos) return std::nullopt;
  return console.substr(start, end - start);
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const auto end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

const std::vector<std::string> kLibrarySegv = {"lib-segv"};

}  // namespace

TEST_CASE("stacks: a null dereference in a shared library is recorded with its function and line, and the verdict quotes it") {
  TempDir tmp;
  const auto argv = crasher_argv("crash_cases", kLibrarySegv);
  auto outcome = run_under_ftdiag(tmp, argv);
  check_dies_of_segv_as_without_ftdiag(outcome, argv);
  const auto run_dir = only_run_folder(tmp / "job");
  CHECK(crash_files(run_dir).size() == 1);

  auto analysis = analyzed(tmp);
  auto& run = only_run(analysis.document);
  auto& crash = job_crash(run);
  // The first frame is the faulting store in the library's function.
  const int line = line_of(source_file("tests/crashers/lib/faults.c"), "*pointer = 7;");
  auto& frame = crash["frames"][0];
  INFO("frame 0: ", frame.dump());
  CHECK(frame["function"] == "faults_write_through_null");
  CHECK(path_named(frame["file"], "faults.c"));
  CHECK(frame["line"] == line);
  CHECK(path_named(frame["object"], "libcrashfaults.so"));
  CHECK(frame["language"] == "native");
  // The program's main called into it.
  bool main_frame = false;
  for (auto& f : crash["frames"]) main_frame |= f["function"] == "main" && path_named(f["object"], "crash_cases");
  CHECK(main_frame);
  CHECK(crash["fault_address"] == 0);

  auto& report = analysis.report;
  CHECK_MESSAGE(report["verdict"]["cause"] == "framework-bug-segfault", report["verdict"].dump());
  CHECK(report["verdict"]["rule"] == "native-fault-with-sound-memory");
  const auto says = support_text(report);
  INFO("support: ", says);
  CHECK(contains(says, "the crash handler recorded its native stack: faults_write_through_null (faults.c:" +
                           std::to_string(line) + ")"));
  CHECK(contains(says, "the crashing code is in libcrashfaults.so"));
}

TEST_CASE("stacks: a runaway recursion on a second thread is a stack overflow, its stack the recursive function repeated") {
  TempDir tmp;
  const std::vector<std::string> argv = crasher_argv("crash_cases", {"thread-overflow"});
  auto outcome = run_under_ftdiag(tmp, argv);
  check_dies_of_segv_as_without_ftdiag(outcome, argv);

  auto analysis = analyzed(tmp);
  auto& run = only_run(analysis.document);
  auto& crash = job_crash(run);
  // Not the main thread: the probe knew the second thread's stack, and the
  // fault fell just below it.
  CHECK(crash["tid"] != crash["pid"]);
  REQUIRE(crash["stack_low"].is_number());
  REQUIRE(crash["fault_address"].is_number());
  CHECK(crash["fault_address"].get<std::uint64_t>() < crash["stack_low"].get<std::uint64_t>());
  // The recursion ran past 256 frames: every recorded one is the recursive
  // function, at its own line (the first) then at the recursive call.
  CHECK(crash["unwind"] == "truncated");
  auto& frames = crash["frames"];
  CHECK(frames.size() == 256);
  const int call = line_of(source_file("tests/crashers/crash_cases.c"), "return recurse_forever(frame)");
  std::size_t recursive = 0;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (frames[i]["function"] != "recurse_forever") continue;
    ++recursive;
    if (i > 0) CHECK(frames[i]["line"] == call);
  }
  CHECK(recursive == frames.size());

  auto& report = analysis.report;
  CHECK_MESSAGE(report["verdict"]["cause"] == "stack-overflow", report["verdict"].dump());
  CHECK(report["verdict"]["rule"] == "crash-at-stack-guard");
  const auto summary = text_of(report["verdict"]["summary"]);
  const std::string repeated = "recurse_forever (crash_cases.c:" + std::to_string(call) + ") <- recurse_forever (crash_cases.c:" +
                               std::to_string(call) + ")";
  CHECK_MESSAGE(contains(summary, repeated), summary);
  CHECK(contains(support_text(report), "the innermost frames: recurse_forever (crash_cases.c:"));
}

TEST_CASE("stacks: a Python program that crashes in native code has native and Python frames, and the verdict quotes the Python stack") {
  if (::access(kDebianPython, X_OK) != 0) FTDIAG_SKIP("no " + std::string(kDebianPython) + " here");
  TempDir tmp;
  const auto script = source_file("tests/crashers/native_crash.py");
  const std::vector<std::string> argv = {std::string(kDebianPython), script.string()};
  auto outcome = run_under_ftdiag(tmp, argv);
  check_dies_of_segv_as_without_ftdiag(outcome, argv);
  const auto run_dir = only_run_folder(tmp / "job");
  CHECK(crash_files(run_dir).size() == 1);

  auto analysis = analyzed(tmp);
  auto& run = only_run(analysis.document);
  auto& crash = job_crash(run);
  const int line = line_of(script, "# native_crash: fault");

  // Native: the C library's strlen faulted, called from _ctypes.
  auto& frames = crash["frames"];
  INFO("native frames: ", frames.dump().substr(0, 3000));
  CHECK(contains(text_of(frames[0]["object"]), "/libc.so"));
  if (!text_of(frames[0]["function"]).empty()) CHECK(contains(text_of(frames[0]["function"]), "strlen"));
  bool ctypes_frame = false;
  for (auto& frame : frames) ctypes_frame |= contains(text_of(frame["object"]), "/_ctypes");
  CHECK(ctypes_frame);

  // Python: the crashing thread's frames, innermost first, down to tokenize_batch.
  auto& threads = crash["python"];
  INFO("python: ", threads.dump().substr(0, 3000));
  REQUIRE(threads.is_array());
  json* current = nullptr;
  for (auto& thread : threads) {
    if (thread["current"] == true) current = &thread;
  }
  REQUIRE(current);
  auto& python_frames = (*current)["frames"];
  REQUIRE(python_frames.size() >= 2);
  CHECK(python_frames[0]["function"] == "string_at");
  CHECK(python_frames[0]["language"] == "python");
  auto& caller = python_frames[1];
  CHECK(caller["function"] == "tokenize_batch");
  CHECK(caller["file"] == script.string());
  CHECK(caller["line"] == line);

  auto& report = analysis.report;
  CHECK_MESSAGE(report["verdict"]["cause"] == "framework-bug-segfault", report["verdict"].dump());
  const auto says = support_text(report);
  INFO("support: ", says);
  CHECK(contains(says, "the Python frames that led there: string_at ("));
  CHECK(contains(says, "<- tokenize_batch (native_crash.py:" + std::to_string(line) + ")"));
  CHECK(contains(says, "the crash handler recorded its native stack: "));
}

TEST_CASE("stacks: two versions of one library mapped in the crashing process are an ABI mismatch naming both files") {
  TempDir tmp;
  const auto cuda11 = crasher("gpu/cuda-11/libcudart.so.11.0");
  const auto cuda12 = crasher("gpu/cuda-12/libcudart.so.12");
  const auto argv = crasher_argv("two_libraries", {cuda11.string(), cuda12.string()});
  auto outcome = run_under_ftdiag(tmp, argv);
  INFO("ftdiag: ", outcome.describe(), "; stdout: ", outcome.out);
  check_dies_of_segv_as_without_ftdiag(outcome, argv);
  // Both were really loaded, each answering with its own version.
  CHECK(contains(outcome.out, "loaded " + cuda11.string() + ": runtime 11080"));
  CHECK(contains(outcome.out, "loaded " + cuda12.string() + ": runtime 12080"));

  auto analysis = analyzed(tmp);
  auto& run = only_run(analysis.document);
  auto& crash = job_crash(run);
  auto& frame = crash["frames"][0];
  INFO("frame 0: ", frame.dump());
  CHECK(frame["function"] == "cudart_context_device");
  CHECK(path_named(frame["file"], "fake_cudart.c"));
  CHECK(frame["line"] == line_of(source_file("tests/crashers/gpu/fake_cudart.c"), "fake-cudart: null context"));
  CHECK(frame["object"] == cuda12.string());
  CHECK(crash["frames"][1]["function"] == "cudaGetDevice");
  bool mapped11 = false, mapped12 = false;
  for (auto& module : crash["modules"]) {
    mapped11 |= module["path"] == cuda11.string();
    mapped12 |= module["path"] == cuda12.string();
  }
  CHECK(mapped11);
  CHECK(mapped12);

  auto& report = analysis.report;
  CHECK_MESSAGE(report["verdict"]["cause"] == "library-abi-mismatch", report["verdict"].dump());
  CHECK(report["verdict"]["rule"] == "two-versions-of-a-library");
  const auto summary = text_of(report["verdict"]["summary"]);
  INFO("summary: ", summary);
  CHECK(contains(summary, "libcudart.so.11.0 (" + cuda11.parent_path().string() + ")"));
  CHECK(contains(summary, "libcudart.so.12 (" + cuda12.parent_path().string() + ")"));
  CHECK(contains(support_text(report), "it crashed in libcudart.so.12 (cuda-runtime code)"));
}

TEST_CASE("stacks: with --no-probes the same crash leaves no record, nothing of ftdiag is preloaded, and the verdict stands") {
  {
    TempDir tmp;
    const auto argv = crasher_argv("crash_cases", kLibrarySegv);
    auto outcome = run_under_ftdiag(tmp, argv, {"--no-probes"});
    check_dies_of_segv_as_without_ftdiag(outcome, argv);
    const auto run_dir = only_run_folder(tmp / "job");
    CHECK(crash_files(run_dir).empty());

    auto analysis = analyzed(tmp);
    auto& run = only_run(analysis.document);
    CHECK(run["job_status"]["signal"] == SIGSEGV);
    CHECK_MESSAGE(run["crashes"].empty(), run["crashes"].dump().substr(0, 2000));
    CHECK(run["started"]["mechanisms"]["crash-probe"] != true);
    auto& report = analysis.report;
    CHECK_MESSAGE(report["verdict"]["cause"] == "framework-bug-segfault", report["verdict"].dump());
    CHECK_FALSE(contains(support_text(report), "the crash handler recorded"));
  }
  {
    // The job's environment: neither LD_PRELOAD nor PYTHONPATH carries a probe.
    TempDir tmp;
    auto outcome = run_under_ftdiag(tmp, {"/bin/sh", "-c", "echo \"preload=[$LD_PRELOAD]\"; echo \"pythonpath=[$PYTHONPATH]\""},
                                    {"--no-probes"}, {{"LD_PRELOAD", std::nullopt}, {"PYTHONPATH", std::nullopt}});
    REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
    const auto run_dir = only_run_folder(tmp / "job");
    INFO("console.log: ", read_text(run_dir / "console.log"));
    CHECK(printed_value(run_dir, "preload") == std::optional<std::string>(""));
    CHECK(printed_value(run_dir, "pythonpath") == std::optional<std::string>(""));
  }
}

TEST_CASE("stacks: the user's own LD_PRELOAD entries are kept, before the crash handler") {
  TempDir tmp;
  const auto user_library = crasher("libcrashfaults.so").string();
  std::map<std::string, std::optional<std::string>> env = {{"LD_PRELOAD", user_library}};
#ifdef FTDIAG_SANITIZED
  // ftdiag itself starts with the user's LD_PRELOAD too: a sanitized ftdiag
  // must be told that a library loaded before its runtime is expected.
  env["ASAN_OPTIONS"] = "verify_asan_link_order=0";
#endif
  auto outcome = run_under_ftdiag(tmp, {"/bin/sh", "-c", "echo \"preload=[$LD_PRELOAD]\""}, {}, env);
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  const auto run_dir = only_run_folder(tmp / "job");
  INFO("console.log: ", read_text(run_dir / "console.log"));
  auto preload = printed_value(run_dir, "preload");
  REQUIRE(preload);
  auto entries = split(*preload, ':');
  REQUIRE(entries.size() == 2);
  CHECK(entries[0] == user_library);
  CHECK(fs::path(entries[1]).filename() == "libftdiag_crash.so");
  CHECK(fs::exists(entries[1]));
}

TEST_CASE("stacks: a sitecustomize of the job's own PYTHONPATH still runs, and so does the Python probe") {
  if (::access(kDebianPython, X_OK) != 0) FTDIAG_SKIP("no " + std::string(kDebianPython) + " here");
  TempDir tmp;
  const auto user_path = tmp / "site";
  fs::create_directories(user_path);
  const auto ran = tmp / "user-sitecustomize-ran";
  write_text(user_path / "sitecustomize.py",
             "import os\n"
             "with open(" + nlohmann::json(ran.string()).dump() + ", 'w') as f:\n"
             "    f.write(str(os.getpid()))\n"
             "USER_SITECUSTOMIZE = True\n");
  auto outcome = run_under_ftdiag(
      tmp,
      {std::string(kDebianPython), "-c",
       "import os, sitecustomize; print('user-names=[%s]' % getattr(sitecustomize, 'USER_SITECUSTOMIZE', None)); "
       "print('faults-file=[%s]' % os.path.exists('%s/python-faults.%d.txt' % (os.environ['FTDIAG_RUN_DIR'], os.getpid())))"},
      {}, {{"PYTHONPATH", user_path.string()}, {"PYTHONDONTWRITEBYTECODE", "1"}});
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());

  auto analysis = analyzed(tmp);
  auto& run = only_run(analysis.document);
  const int job_pid = run["started"]["job_pid"].get<int>();
  // The user's sitecustomize ran, in the job's own process.
  REQUIRE_MESSAGE(fs::exists(ran), "the user's sitecustomize did not run; stderr: ", outcome.err);
  CHECK(read_text(ran) == std::to_string(job_pid));
  // Its names are reachable through ours.
  const auto run_dir = only_run_folder(tmp / "job");
  CHECK(printed_value(run_dir, "user-names") == std::optional<std::string>("True"));
  // The probe started too.
  const auto probe_file = run_dir / ("python-probe." + std::to_string(job_pid) + ".txt");
  REQUIRE(fs::exists(probe_file));
  const auto probe = read_text(probe_file);
  INFO("probe file: ", probe);
  CHECK(probe.starts_with("probe 1\n"));
  CHECK(contains(probe, "pid " + std::to_string(job_pid) + "\n"));
  CHECK_FALSE(contains(probe, "error "));
  // faulthandler had its file while the job ran; it held nothing at the end
  // and was removed then.
  CHECK(printed_value(run_dir, "faults-file") == std::optional<std::string>("True"));
  CHECK_FALSE(fs::exists(run_dir / ("python-faults." + std::to_string(job_pid) + ".txt")));
}

}  // namespace ftdiag::itest
