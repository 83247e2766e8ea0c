// The interpreter's report: found after whatever else it printed, checked
// field by field, never trusted.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "collect/python_env/python_sys_path.h"

using namespace ftdiag::collect;

TEST_CASE("python sys.path: the report line, after other output, without the -c entry") {
  const auto report = parse_interpreter_report(
      "a sitecustomize printed this without a newline"
      "\nftdiag-python-report {\"version\": \"3.11.2\", \"executable\": \"/usr/bin/python3\", "
      "\"prefix\": \"/usr\", \"path\": [\"\", \"/fixture\", \"/usr/lib/python311.zip\", 7, "
      "\"/usr/lib/python3/dist-packages\", \"caf\\u00e9\"]}\n");
  REQUIRE(report);
  CHECK(report->version == "3.11.2");
  CHECK(report->executable == "/usr/bin/python3");
  CHECK(report->prefix == "/usr");
  CHECK(report->sys_path ==
        std::vector<std::string>{"/fixture", "/usr/lib/python311.zip", "/usr/lib/python3/dist-packages", "caf\xc3\xa9"});
}

TEST_CASE("python sys.path: garbage, a missing field, or no report is unparseable") {
  for (const std::string& output :
       {std::string(""), std::string("Python 2.7.18\n"), std::string("ftdiag-python-report \n"),
        std::string("ftdiag-python-report {\"version\": \"3.11.2\"}\n"),
        std::string("ftdiag-python-report {\"version\": 3, \"path\": []}\n"),
        std::string("ftdiag-python-report {\"version\": \"3.11.2\", \"path\": \"/usr\"}\n"),
        std::string("ftdiag-python-report [\"version\", \"path\"]\n"),
        std::string("ftdiag-python-report {\"version\": \"3.11.2\", \"path\": [\"\\udcff\"]}\n"),
        std::string("ftdiag-python-report ") + std::string(100000, '[') + "\n",
        std::string("ftdiag-python-report {\"version\": \"3.1\xff\", \"path\": []}\n")}) {
    CAPTURE(output.substr(0, 80));
    auto report = parse_interpreter_report(output);
    REQUIRE_FALSE(report);
    CHECK(report.missing().reason == ftdiag::MissingReason::unparseable);
  }
}

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
