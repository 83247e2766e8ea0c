// CPython's faulthandler dumps, from live captures (CPython 3.11) and the
// 3.14 form with a C stack and thread names: threads, frames innermost
// first, the current thread, extension modules, the signal.
#include <doctest/doctest.h>

#include <csignal>
#include <fstream>
#include <sstream>
#include <string>

#include "parse/logs/faulthandler.h"

using namespace ftdiag::parse;

namespace {

std::string capture(const std::string& name) {
  std::ifstream in(std::string(FTDIAG_FIXTURES_DIR) + "/logs/" + name);
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("faulthandler: a segfault in the main thread with a worker thread (live capture)") {
  const auto dumps = read_faulthandler_dumps(capture("python-faulthandler-segv.txt"));
  REQUIRE(dumps.size() == 1);
  const auto& dump = dumps[0];
  CHECK(dump.error == "Segmentation fault");
  CHECK(dump.signal == SIGSEGV);
  CHECK(dump.first_line == 1);
  REQUIRE(dump.threads.size() == 2);
  CHECK_FALSE(dump.threads[0].current);
  CHECK(dump.threads[0].id == "0x00007ff667c776c0");
  CHECK(dump.threads[0].frames.size() == 4);
  CHECK(dump.threads[0].frames[0] == PythonFrame{"/home/user/job/fh.py", 4, "worker"});
  const auto& current = dump.threads[1];
  CHECK(current.current);
  REQUIRE(current.frames.size() == 4);
  CHECK(current.frames[0] == PythonFrame{"/usr/lib/python3.11/ctypes/__init__.py", 519, "string_at"});
  CHECK(current.frames[1] == PythonFrame{"/home/user/job/fh.py", 8, "train_step"});
  CHECK(current.frames[3].function == "<module>");
  CHECK(dump.extension_modules.empty());
}

TEST_CASE("faulthandler: extension modules, aborts and bus errors (live captures)") {
  auto dumps = read_faulthandler_dumps(capture("python-faulthandler-extmods.txt"));
  REQUIRE(dumps.size() == 1);
  CHECK(dumps[0].extension_modules == std::vector<std::string>{"markupsafe._speedups", "yaml._yaml"});
  CHECK(dumps[0].threads.at(0).frames.at(1).file == "<string>");
  dumps = read_faulthandler_dumps(capture("python-faulthandler-abrt.txt"));
  REQUIRE(dumps.size() == 1);
  CHECK(dumps[0].signal == SIGABRT);
  dumps = read_faulthandler_dumps(capture("python-faulthandler-bus.txt"));
  REQUIRE(dumps.size() == 1);
  CHECK(dumps[0].signal == SIGBUS);
}

TEST_CASE("faulthandler: the 3.14 form, a rank prefix, two dumps, a truncated stack") {
  const std::string text =
      "[rank1]: Fatal Python error: Segmentation fault\n"
      "\n"
      "Current thread 0x000021f4 [pt_main_thread] (most recent call first):\n"
      "  File \"/opt/job/train.py\", line 42 in step\n"
      "  ...\n"
      "\n"
      "Current thread's C stack trace (most recent call first):\n"
      "  Binary file \"/opt/python/python\", at _Py_DumpStack+0x42 [0x5b27f7d7147e]\n"
      "  Binary file \"/usr/lib/libc.so.6\", at +0x3def0 [0x77b73226bef0]\n"
      "  <truncated rest of calls>\n"
      "\n"
      "Extension modules: torch._C (total: 1)\n"
      "Segmentation fault (core dumped)\n"
      "Fatal Python error: Aborted\n"
      "\n"
      "Stack (most recent call first):\n"
      "  <no Python frame>\n";
  const auto dumps = read_faulthandler_dumps(text);
  REQUIRE(dumps.size() == 2);
  const auto& thread = dumps[0].threads.at(0);
  CHECK(thread.current);
  CHECK(thread.name == "pt_main_thread");
  CHECK(thread.truncated);
  REQUIRE(thread.native.size() == 2);
  CHECK(thread.native[0].symbol == "_Py_DumpStack");
  CHECK(thread.native[0].offset == 0x42u);
  CHECK(thread.native[0].address == 0x5b27f7d7147eu);
  CHECK(thread.native[1].symbol.empty());
  CHECK(thread.native[1].offset == 0x3def0u);
  CHECK(dumps[0].extension_modules == std::vector<std::string>{"torch._C"});
  CHECK(dumps[1].signal == SIGABRT);
  CHECK(dumps[1].first_line == 14);
  CHECK(dumps[1].threads.at(0).frames.empty());
}

TEST_CASE("faulthandler: a traceback is not a dump, garbage and cut dumps give what they can") {
  CHECK(read_faulthandler_dumps("Traceback (most recent call last):\n  File \"a.py\", line 3, in f\nValueError: x\n").empty());
  CHECK(read_faulthandler_dumps(std::string("\0\xff\x01\nFatal Python error", 22)).empty());
  const auto cut = read_faulthandler_dumps("Fatal Python error: Segmentation fault\n\nCurrent thread 0x1 (most recent call first):\n  File \"x");
  REQUIRE(cut.size() == 1);
  CHECK(cut[0].threads.at(0).frames.empty());
  std::string many = "Fatal Python error: Segmentation fault\nCurrent thread 0x1 (most recent call first):\n";
  for (int i = 0; i < 10000; ++i) many += "  File \"f.py\", line 1 in g\n";
  const auto bounded = read_faulthandler_dumps(many);
  REQUIRE(bounded.size() == 1);
  CHECK(bounded[0].threads[0].frames.size() == 128);
}
