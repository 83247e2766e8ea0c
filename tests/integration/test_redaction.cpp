// Secrets a job was given never reach what ftdiag writes or prints about the
// run: the command line is kept with each secret replaced by a marker, and
// so are the environment, the configs and scripts read, and the log lines
// quoted (docs/redaction.md). Only console.log, the job's own output, holds
// them as written.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "harness.h"

using namespace ftdiag::itest;
namespace fs = std::filesystem;

namespace {

bool has(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// Every secret of a test, each distinct, so a leak names its source.
struct Secret {
  std::string where;
  std::string value;
};

void check_none_in(const std::string& what, const std::string& text, const std::vector<Secret>& secrets) {
  for (const auto& secret : secrets) {
    CHECK_MESSAGE(!has(text, secret.value), what, " holds the secret given in ", secret.where);
  }
}

Outcome ftdiag_cli(const std::vector<std::string>& args) {
  std::vector<std::string> argv{ftdiag_binary().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(Launch{argv}, 60);
}

// What every way of reading a folder prints: the report (json and text),
// the facts, and the verdict and report of `judge` on the saved report.
std::vector<std::pair<std::string, std::string>> every_output(const fs::path& path, const fs::path& scratch,
                                                              const std::vector<std::string>& extra = {}) {
  std::vector<std::pair<std::string, std::string>> outputs;
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  const auto json = ftdiag_cli(with({"analyze", path.string(), "--format", "json", "--no-host-logs"}));
  REQUIRE_MESSAGE(json.exited_with(0), json.describe());
  outputs.emplace_back("analyze --format json", json.out + json.err);
  const std::pair<std::string, std::vector<std::string>> others[] = {
      {"analyze --format text", with({"analyze", path.string(), "--format", "text", "--no-host-logs"})},
      {"analyze --facts", with({"analyze", path.string(), "--facts", "--no-host-logs"})}};
  for (const auto& [what, args] : others) {
    const auto outcome = ftdiag_cli(args);
    CHECK_MESSAGE(outcome.exited_with(0), outcome.describe());
    outputs.emplace_back(what, outcome.out + outcome.err);
  }
  const fs::path saved = scratch / "report.json";
  write_text(saved, json.out);
  for (const auto& format : {"text", "json"}) {
    const auto judged = ftdiag_cli(with({"judge", saved.string(), "--format", format}));
    CHECK_MESSAGE(judged.exited_with(0), judged.describe());
    outputs.emplace_back(std::string("judge --format ") + format, judged.out + judged.err);
  }
  return outputs;
}

const std::string kPemBody = "MIIEowIBAAKCAQEAn0t4SecretKeyBodyLine0123456789abcdef";

}  // namespace

TEST_CASE("redaction: a token and URL credentials in the job's argv are in no file of the run nor in its summary") {
  TempDir tmp;
  const std::string token = "hf_" + std::string(34, 'Q') + "zx9";
  const fs::path job_dir = tmp / "job";
  // Exit 3: a failed job's command line is printed in the verbose summary.
  auto argv = ftdiag_run(job_dir, {"/bin/sh", "-c", "exit 3", "sh", "--hub_token", token,
                                   "--push_to=https://alice:s3cretPass@example.invalid/repo"},
                         {"--verbose"});
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
  CHECK(journal.find("<redacted:hf token>") != std::string::npos);
  CHECK(journal.find("--hub_token") != std::string::npos);  // the name is kept
  CHECK(journal.find("\"redaction\":\"on\"") != std::string::npos);
}

TEST_CASE("redaction: a job given secrets in argv, environment, configs and its launch script dies, and only console.log holds them") {
  TempDir tmp;
  const fs::path work = tmp / "work";
  fs::create_directories(work);
  const std::vector<Secret> secrets{
      {"--hub_token", "hf_" + std::string(20, 'A') + "argvToken01234"},
      {"--api-key=", "opaque-api-key-from-argv-7731"},
      {"WANDB_API_KEY= as an argument", "0f0e0d0c0b0a09080706050403020100ffeeddcc"},
      {"a URL's password in argv", "urlPassw0rd-5521"},
      {"the environment's HF_TOKEN", "hf_" + std::string(20, 'E') + "environToken0123"},
      {"the environment's MY_SERVICE_PASSWORD", "envPassw0rd-8812"},
      {"ds_config.json", "dsconfig-wandb-key-3317"},
      {"the YAML config", "yaml-hf-token-value-4419"},
      {"the launch script's GITHUB_TOKEN", "ghp_" + std::string(20, 'S') + "cript0123456789ab"},
      {"the launch script's --hub_token", "script-hub-token-6620"},
      {"the launch script's private key", kPemBody},
      {"the traceback's quoted line", "sk-proj-" + std::string(16, 'T') + "raceback0123"},
  };
  auto secret = [&](std::size_t i) { return secrets[i].value; };
  write_text(work / "ds_config.json", R"({"train_batch_size": 8, "zero_optimization": {"stage": 2}, "wandb_api_key": ")" + secret(6) +
                                          R"(", "tokenizer_name": "gpt2"})");
  write_text(work / "train.yaml", "model_name_or_path: gpt2\nhf_token: " + secret(7) + "\nmax_new_tokens: 512\npad_token_id: 0\n");
  write_text(work / "launch.sh", "#!/bin/sh\nexport GITHUB_TOKEN=" + secret(8) +
                                     "\ncat > key.pem <<'EOF'\n-----BEGIN RSA PRIVATE KEY-----\n" + kPemBody +
                                     "\n-----END RSA PRIVATE KEY-----\nEOF\n"
                                     "deepspeed --num_gpus 2 train.py --deepspeed ds_config.json --hub_token " + secret(9) + "\n");
  // A job that fails with a traceback quoting the line that holds a secret,
  // as Python prints one.
  const std::string job =
      "echo 'Traceback (most recent call last):'; "
      "echo '  File \"train.py\", line 12, in <module>'; "
      "echo '    client = OpenAI(api_key=\"" + secret(11) + "\")'; "
      "echo 'openai.AuthenticationError: invalid key " + secret(11) + "' >&2; exit 1";
  const fs::path job_dir = work / "ftdiag-runs";
  Launch launch{ftdiag_run(job_dir, {"/bin/sh", "-c", job, "sh", "--hub_token", secret(0), "--api-key=" + secret(1),
                                     "WANDB_API_KEY=" + secret(2), "--push_to=https://alice:" + secret(3) + "@example.invalid/r"})};
  launch.env["HF_TOKEN"] = secret(4);
  launch.env["MY_SERVICE_PASSWORD"] = secret(5);
  launch.cwd = work;
  auto outcome = run(launch);
  REQUIRE_MESSAGE(outcome.exited_with(1), outcome.describe());
  auto folders = run_folders(job_dir);
  REQUIRE(folders.size() == 1);
  const fs::path run_dir = folders[0];

  // Only the job's own output holds what it printed.
  CHECK(has(read_text(run_dir / "console.log"), secret(11)));
  for (const auto& entry : fs::recursive_directory_iterator(run_dir)) {
    if (!entry.is_regular_file() || entry.path().filename() == "console.log") continue;
    check_none_in(entry.path().filename().string(), read_text(entry.path()), secrets);
  }
  // Every report of the run folder, and of the folder with the configs and
  // the script beside it, in every form.
  for (const auto& path : {run_dir, work}) {
    for (const auto& [what, text] : every_output(path, tmp.path())) {
      CAPTURE(path);
      check_none_in(what, text, secrets);
      // The JSON report holds the command line, its secrets as markers (the
      // text report does not quote the command line).
      if (what.rfind("analyze --format json", 0) == 0) CHECK_MESSAGE(has(text, "<redacted:"), what, " shows no marker");
    }
  }
  // The diagnosis keeps what it needs: the configs' values are read.
  const auto report = ftdiag_cli({"analyze", work.string(), "--format", "json", "--no-host-logs"});
  CHECK(has(report.out, "\"zero_optimization.stage\": \"2\""));
  CHECK(has(report.out, "\"redaction\": \"on\""));
}

TEST_CASE("redaction: a post-mortem of a plain folder: a Bearer JWT quoted in train.log and a key in ds_config.json") {
  TempDir tmp;
  const fs::path folder = tmp / "incident";
  fs::create_directories(folder);
  const std::string jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0cmFpbmVyIn0.c2lnbmF0dXJlLW9mLXRoZS1qd3Q";
  const std::vector<Secret> secrets{{"train.log's Authorization header", jwt},
                                    {"ds_config.json's aws_secret_access_key", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}};
  write_text(folder / "train.log",
             "[2024-05-01 10:00:00] Loading checkpoint shards: 100%\n"
             "[2024-05-01 10:00:05] uploading metrics: POST https://metrics.invalid/v1 headers={'Authorization: Bearer " + jwt + "'}\n"
             "Traceback (most recent call last):\n"
             "  File \"train.py\", line 88, in <module>\n"
             "    trainer.train()\n"
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB\n");
  write_text(folder / "ds_config.json", R"({"zero_optimization": {"stage": 3}, "train_micro_batch_size_per_gpu": 4, "aws_secret_access_key": ")" +
                                            secrets[1].value + R"("})");
  for (const auto& [what, text] : every_output(folder, tmp.path())) {
    check_none_in(what, text, secrets);
  }
  const auto report = ftdiag_cli({"analyze", folder.string(), "--format", "json", "--no-host-logs"});
  CHECK(has(report.out, "Authorization: Bearer <redacted:jwt>"));
  CHECK(has(report.out, "\"zero_optimization.stage\": \"3\""));
  CHECK(has(report.out, "gpu-oom"));  // the quoted lines still decide the verdict
}

TEST_CASE("redaction: --no-redact keeps the values as read and says so, in the run's files and in every report") {
  TempDir tmp;
  const std::string token = "hf_" + std::string(30, 'R') + "aw0123";
  const fs::path job_dir = tmp / "job";
  auto outcome = run(Launch{ftdiag_run(job_dir, {"/bin/sh", "-c", "exit 2", "sh", "--hub_token", token}, {"--no-redact"})});
  REQUIRE_MESSAGE(outcome.exited_with(2), outcome.describe());
  auto folders = run_folders(job_dir);
  REQUIRE(folders.size() == 1);
  const std::string journal = read_text(folders[0] / "journal.jsonl");
  CHECK(has(journal, token));
  CHECK(has(journal, "\"redaction\":\"off\""));
  // analyze redacts a raw journal unless asked not to.
  const auto redacted = ftdiag_cli({"analyze", folders[0].string(), "--format", "text", "--no-host-logs"});
  CHECK(!has(redacted.out, token));
  const auto raw = ftdiag_cli({"analyze", folders[0].string(), "--format", "text", "--no-host-logs", "--no-redact"});
  CHECK(has(raw.out, "redaction is off"));
  const auto raw_json = ftdiag_cli({"analyze", folders[0].string(), "--format", "json", "--no-host-logs", "--no-redact"});
  CHECK(has(raw_json.out, token));
  CHECK(has(raw_json.out, "\"redaction\": \"off\""));
  // judge of the raw report redacts it again, unless asked not to.
  write_text(tmp / "raw.json", raw_json.out);
  const auto judged = ftdiag_cli({"judge", (tmp / "raw.json").string(), "--format", "json"});
  CHECK(!has(judged.out, token));
  CHECK(has(judged.out, "\"redaction\": \"on\""));
  const auto judged_raw = ftdiag_cli({"judge", (tmp / "raw.json").string(), "--format", "json", "--no-redact"});
  CHECK(has(judged_raw.out, token));
  CHECK(has(judged_raw.out, "\"redaction\": \"off\""));
}
