// Secrets a job was given never reach what ftdiag writes or prints about the
// run: the command line is kept with each secret replaced by a marker
// (docs/redaction.md).
#include <doctest/doctest.h>

#include "harness.h"

using namespace ftdiag::itest;
namespace fs = std::filesystem;

TEST_CASE("redaction: a token and URL credentials in the job's argv are in no file of the run nor in its summary") {
  TempDir tmp;
  const std::string token = "hf_" + std::string(34, 'Q') + "zx9";
  const fs::path job_dir = tmp / "job";
  // Exit 3: a failed job's command line is printed in the summary.
  auto argv = ftdiag_run(job_dir, {"/bin/sh", "-c", "exit 3", "sh", "--hub_token", token,
                                   "--push_to=https://alice:s3cretPass@example.invalid/repo"});
  // Without --quiet, so that the end-of-run summary is printed.
  std::erase(argv, std::string("--quiet"));
  Launch launch{argv};
  auto outcome = run(launch);
  REQUIRE_MESSAGE(outcome.exited_with(3), outcome.describe());
  CHECK(outcome.err.find("--hub_token") != std::string::npos);
  CHECK(outcome.err.find(token) == std::string::npos);
  CHECK(outcome.err.find("s3cretPass") == std::string::npos);
  auto folders = run_folders(job_dir);
  REQUIRE(folders.size() == 1);
  for (const char* name : {"journal.jsonl", "environment.json"}) {
    CAPTURE(name);
    const std::string text = read_text(folders[0] / name);
    CHECK(text.find(token) == std::string::npos);
    CHECK(text.find("s3cretPass") == std::string::npos);
  }
  const std::string journal = read_text(folders[0] / "journal.jsonl");
  CHECK(journal.find("<redacted:") != std::string::npos);
  CHECK(journal.find("--hub_token") != std::string::npos);  // the name is kept
}
