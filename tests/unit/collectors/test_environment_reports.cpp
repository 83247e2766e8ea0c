// The environment-reports collector on a folder a crashed job left: reports
// found by their content wherever they are (within bounds), their values in
// the host's evidence with file and line, the facts and checks built on them.
#include <doctest/doctest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "collectors/environment_reports.h"
#include "collectors/post_mortem.h"
#include "evidence/document_json.h"
#include "facts/extract.h"
#include "rules/data_tables.h"
#include "rules/engine.h"
#include "rules/rule_loader.h"
#include "rules/rule_paths.h"
#include "unit/parse/reports/environment_report_fixtures.h"

using namespace ftdiag;
namespace fs = std::filesystem;

namespace {

struct ReportsDir {
  fs::path path;
  ReportsDir() {
    char tmpl[] = "/tmp/ftdiag-env-reports-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }
  ~ReportsDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void write_report(const fs::path& file, std::string_view text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

// torch cu121 in a pasted collect_env, nvidia-smi of a CUDA 11.4 driver in a
// log folder; copies of reports where none may be read.
void write_job(const fs::path& job) {
  write_report(job / "env.txt", ftdiag::testing::kCollectEnvTorch21);
  write_report(job / "logs" / "nvidia-smi.txt",
        "| NVIDIA-SMI 470.57.02    Driver Version: 470.57.02    CUDA Version: 11.4     |\n");
  std::string shard("\0\0\0\0PyTorch version: 9.9.9\n", 28);  // binary: a checkpoint shard
  write_report(job / "checkpoint-500" / "model.safetensors", shard);
  write_report(job / ".git" / "env.txt", "Nvidia driver version: 999.1.1\n");
  write_report(job / "a" / "b" / "c" / "d" / "e" / "f" / "g" / "env.txt", "Nvidia driver version: 999.2.2\n");  // past the walk's depth
  write_report(job / "run-rank0" / "journal.jsonl", "");
  write_report(job / "run-rank0" / "console.log", "Nvidia driver version: 999.3.3\n");
}

const evidence::ReportedValue* first_reported(const evidence::HostEvidence& host, std::string_view key) {
  for (const auto& value : host.reported) {
    if (value.key == key) return &value;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("environment reports: found by content within bounds, stored with file and line") {
  ReportsDir tmp;
  write_job(tmp.path / "job");
  const collectors::EnvironmentReportsCollector collector;
  CHECK(collector.recognises(collectors::Inventory::of(tmp.path / "job")));
  CHECK(collector.recognises(collectors::Inventory::of(tmp.path / "job" / "env.txt")));
  CHECK_FALSE(collector.recognises(collectors::Inventory::of(tmp.path / "job" / "checkpoint-500")));
  CHECK_FALSE(collector.recognises(collectors::Inventory::of(tmp.path / "job" / "run-rank0")));

  evidence::EvidenceDocument document;
  const auto report = collector.collect(collectors::Inventory::of(tmp.path / "job"), {}, document);
  CHECK(report.outcome.has_value());
  CHECK(report.sources == std::vector<std::string>{(tmp.path / "job" / "env.txt").string(),
                                                   (tmp.path / "job" / "logs" / "nvidia-smi.txt").string()});
  REQUIRE(document.hosts.size() == 1);
  const auto& host = document.hosts[0];
  const auto* cuda = first_reported(host, "torch.cuda_version");
  REQUIRE(cuda != nullptr);
  CHECK(cuda->value == "12.1");
  CHECK(cuda->format == "env-report");
  CHECK(cuda->from.collector == "environment-reports");
  CHECK(cuda->from.file == (tmp.path / "job" / "env.txt").string());
  CHECK(cuda->from.line == 4u);
  const auto* driver = first_reported(host, "gpu.driver_version");
  REQUIRE(driver != nullptr);
  CHECK(driver->value == "535.104.05");  // env.txt comes first; nothing from .git, too deep, a run folder or binary
  for (const auto& value : host.reported) {
    CAPTURE(value.key);
    CHECK(value.value.find("999") == std::string::npos);
    CHECK(value.value != "9.9.9");
  }

  // The evidence reads back with its provenance.
  const auto back = evidence::document_from_json(evidence::document_to_json(document));
  REQUIRE(back.has_value());
  CHECK(back->hosts[0].reported == host.reported);
}

TEST_CASE("environment reports: a folder with no report is not recognised, and says so when collected") {
  ReportsDir tmp;
  write_report(tmp.path / "train.log", "step 1 loss 2.0\nstep 2 loss 1.9\n");
  const collectors::EnvironmentReportsCollector collector;
  CHECK_FALSE(collector.recognises(collectors::Inventory::of(tmp.path)));
  evidence::EvidenceDocument document;
  const auto report = collector.collect(collectors::Inventory::of(tmp.path), {}, document);
  REQUIRE_FALSE(report.outcome.has_value());
  CHECK(report.outcome.missing().reason == MissingReason::not_present);
  CHECK(document.hosts.empty());
}

TEST_CASE("environment reports: the facts fall back on them, and the CUDA checks judge them") {
  ReportsDir tmp;
  write_job(tmp.path / "job");
  const collectors::EnvironmentReportsCollector collector;
  auto document = collectors::collect_post_mortem({tmp.path / "job"}, {}, {&collector});
  REQUIRE_MESSAGE(document.has_value(), document.missing().detail);
  auto facts = facts::extract_facts(document.value());
  CHECK(std::get<std::string>(*facts.get("environment.source").value) == "report");
  CHECK(std::get<std::string>(*facts.get("torch.version").value) == "2.1.0+cu121");
  CHECK(std::get<std::string>(*facts.get("torch.build_tag").value) == "cu121");
  CHECK(std::get<std::int64_t>(*facts.get("torch.cuda_major").value) == 12);
  CHECK(std::get<std::string>(*facts.get("gpu.driver_version").value) == "535.104.05");
  CHECK(std::get<std::string>(*facts.get("gpu.driver_cuda_version").value) == "11.4");
  CHECK(std::get<std::int64_t>(*facts.get("gpu.count").value) == 2);
  CHECK(std::get<std::string>(*facts.get("gpu.name").value) == "NVIDIA A100-SXM4-80GB");
  CHECK(std::get<std::string>(*facts.get("python.version").value) == "3.10.12");
  CHECK(std::get<std::string>(*facts.get("cuda.toolkit_version").value) == "12.1.105");
  const auto& pointer = facts.get("torch.cuda_version").pointer;
  CHECK(pointer.starts_with("/hosts/0/reported/"));
  CHECK(pointer.ends_with("/value"));

  const auto rules = rules::load_rules(rules::builtin_rules_directory());
  REQUIRE(rules.ok());
  rules::apply_tables(rules.tables, facts);
  const auto judgement = rules::judge(rules.rules, facts);
  bool needs_newer_driver = false;
  for (const auto& check : judgement.checks) needs_newer_driver = needs_newer_driver || check.rule == "cuda-build-needs-newer-major-driver";
  CHECK(needs_newer_driver);
}
