// Secrets a job was given never reach the journal: the command line is
// journaled with each secret replaced by a marker (docs/redaction.md).
#include <doctest/doctest.h>

#include "harness.h"

using namespace ftdiag::itest;
namespace fs = std::filesystem;

TEST_CASE("redaction: a token and URL credentials in the job's argv are not in journal.jsonl") {
  TempDir tmp;
  const std::string token = "hf_" + std::string(34, 'Q') + "zx9";
  const fs::path job_dir = tmp / "job";
  Launch launch{ftdiag_run(job_dir, {"/bin/sh", "-c", "exit 0", "sh", "--hub_token", token,
                                      "--push_to=https://alice:s3cretPass@example.invalid/repo"})};
  auto outcome = run(launch);
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  auto folders = run_folders(job_dir);
  REQUIRE(folders.size() == 1);
  const std::string journal = read_text(folders[0] / "journal.jsonl");
  CHECK(journal.find(token) == std::string::npos);
  CHECK(journal.find("s3cretPass") == std::string::npos);
  CHECK(journal.find("<redacted:") != std::string::npos);
  CHECK(journal.find("--hub_token") != std::string::npos);  // the name is kept
}
