// The command that asks an interpreter for its report.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "collect/python_env/python_sys_path.h"

using namespace ftdiag::collect;

TEST_CASE("python sys.path: the command asks with -B -S -c and nothing else") {
  const auto argv = interpreter_report_command("/usr/bin/python3");
  REQUIRE(argv.size() == 5);
  CHECK(argv[0] == "/usr/bin/python3");
  CHECK(argv[1] == "-B");
  CHECK(argv[2] == "-S");  // site's start-up hooks (sitecustomize) never run
  CHECK(argv[3] == "-c");
  CHECK(argv[4].find("import json, os, sys") == 0);
  CHECK(argv[4].find("torch") == std::string::npos);
  CHECK(argv[4].find("addsitepackages") != std::string::npos);
}
