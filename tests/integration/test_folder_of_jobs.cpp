// `ftdiag analyze ftdiag-runs`: the folder `ftdiag run` fills by default is
// analyzed as its newest job, and says so.
#include <doctest/doctest.h>

#include "integration/harness.h"

namespace ftdiag::itest {

TEST_CASE("folder of jobs: analyze of ./ftdiag-runs analyzes its newest job and names it") {
  TempDir tmp;
  // Two jobs with the default job directory, as a user would start them.
  for (const char* code : {"3", "5"}) {
    Launch launch{{ftdiag_binary().string(), "run", "--quiet", "--no-environment", "--", "/bin/sh", "-c", std::string("exit ") + code}};
    launch.cwd = tmp.path();
    auto outcome = run(launch);
    REQUIRE_MESSAGE(outcome.exited_with(std::stoi(code)), outcome.describe());
  }
  std::vector<fs::path> jobs;
  for (const auto& entry : fs::directory_iterator(tmp / "ftdiag-runs")) jobs.push_back(entry.path());
  REQUIRE(jobs.size() == 2);

  Launch analyze_launch{{ftdiag_binary().string(), "analyze", "ftdiag-runs", "--format", "json"}};
  analyze_launch.cwd = tmp.path();
  auto outcome = run(analyze_launch, 60);
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  CHECK(outcome.err.find("holds 2 jobs; analyzing the newest") != std::string::npos);
  auto report = json::parse(outcome.out);
  auto runs = all_runs(report["evidence"]);
  REQUIRE(runs.size() == 1);
  // The newest is the one that exited 5.
  CHECK(runs[0]["job_status"]["exit_code"] == 5);
}

}  // namespace ftdiag::itest
