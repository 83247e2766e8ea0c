// The interpreter's report: found after whatever else it printed, checked
// field by field, never trusted.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "parse/python_env/interpreter_report.h"

using namespace ftdiag::parse;

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
