// The environment `ftdiag run` records (environment.json) is read by a child
// of ftdiag started before the job (collectors/environment_beside_job.h): it
// is there whether the job outlives the reading or ends before it, it is
// read for the job's own command, and neither the reader nor the helpers it
// starts are taken for processes of the job.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness.h"

using namespace ftdiag::itest;
namespace fs = std::filesystem;

namespace {

nlohmann::json environment_of(const fs::path& job_dir) {
  const auto folders = run_folders(job_dir);
  REQUIRE(folders.size() == 1);
  const fs::path file = folders[0] / "environment.json";
  REQUIRE_MESSAGE(fs::exists(file), file.string());
  return nlohmann::json::parse(read_text(file));
}

// No process the run recorded is ftdiag's reader or one of its helpers.
void check_no_reader_among_the_jobs_processes(const fs::path& job_dir) {
  auto analysis = analyze(job_dir);
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  auto& run = only_run(analysis.document);
  for (auto& process : run["processes"]) {
    const std::string name = process.value("comm", std::string());
    CHECK_MESSAGE(name != "ftdiag-env", process.dump());
    CHECK_MESSAGE(name.find("gpu-probe") == std::string::npos, process.dump());
  }
  const std::string journal = read_text(run_folders(job_dir)[0] / "journal.jsonl");
  CHECK(journal.find("ftdiag-env") == std::string::npos);
}

}  // namespace

TEST_CASE("environment beside the job: a job that outlives the reading has it, read for its own command") {
  TempDir scratch;
  const fs::path job_dir = scratch / "job";
  const auto outcome = run(Launch{ftdiag_run(job_dir, {"sh", "-c", "sleep 2; exit 3"})});
  REQUIRE_MESSAGE(outcome.exited_with(3), outcome.describe());
  auto environment = environment_of(job_dir);
  CHECK(environment["command"] == nlohmann::json::array({"sh", "-c", "sleep 2; exit 3"}));
  CHECK(environment.contains("system"));
  CHECK(environment.contains("gpu"));
  CHECK(environment.contains("python"));
  check_no_reader_among_the_jobs_processes(job_dir);
}

TEST_CASE("environment beside the job: a job that ends before the reading still has it") {
  TempDir scratch;
  const fs::path job_dir = scratch / "job";
  const auto outcome = run(Launch{ftdiag_run(job_dir, {"/bin/true"})});
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  auto environment = environment_of(job_dir);
  CHECK(environment["command"] == nlohmann::json::array({"/bin/true"}));
  check_no_reader_among_the_jobs_processes(job_dir);
}

TEST_CASE("environment beside the job: --no-environment starts no reader and writes no environment.json") {
  TempDir scratch;
  const fs::path job_dir = scratch / "job";
  const auto outcome = run(Launch{ftdiag_run(job_dir, {"/bin/true"}, {"--no-environment"})});
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  const auto folders = run_folders(job_dir);
  REQUIRE(folders.size() == 1);
  CHECK_FALSE(fs::exists(folders[0] / "environment.json"));
}
