// The evidence document's one redaction step (evidence/redact_document.h):
// every field that can hold a secret is reached, the values the rules need
// are kept, and the document says whether it was redacted.
#include <doctest/doctest.h>

#include <string>

#include "evidence/document_json.h"
#include "evidence/redact_document.h"

using namespace ftdiag;
using namespace ftdiag::evidence;

namespace {

const std::string kHf = "hf_" + std::string(34, 'k');

bool has(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

EvidenceDocument document_with_secrets() {
  EvidenceDocument document;
  auto& host = host_named(document, "node0");
  auto& run = host.runs.emplace_back();
  run.started.argv = {"python", "train.py", "--hub_token", "opaque-secret-1", "--max_new_tokens", "512"};
  ProcessEvidence process;
  process.argv = {"python", "-c", "login('" + kHf + "')"};
  run.processes.push_back(process);
  run.console.tail.push_back({.time = 1, .stream = 'e', .text = "WANDB_API_KEY=opaque-secret-2 failed"});
  host.configs.push_back({.kind = "deepspeed",
                          .settings = {{"zero_optimization.stage", "2"},
                                       {"wandb_api_key", "opaque-secret-3"},
                                       {"tokenizer.eos_token", "</s>"},
                                       {"model.num_key_value_heads", "8"}}});
  LogFileEvidence log;
  log.tail = {{1, "-----BEGIN PRIVATE KEY-----"}, {2, "opaque-key-body-4"}, {3, "-----END PRIVATE KEY-----"}, {4, "step 5"}};
  LogEvent event;
  event.kind = "traceback";
  event.text = "Authorization: Bearer opaque-bearer-credential-5";
  log.events.push_back(event);
  host.logs.push_back(log);
  host.reported.push_back({.key = "package.torch", .value = "2.3.0", .format = "pip"});
  return document;
}

}  // namespace

TEST_CASE("redact document: every secret of the document is replaced, the diagnostic values are kept") {
  auto document = document_with_secrets();
  REQUIRE(apply_redaction(document, Redaction::on));
  CHECK(document.redaction == "on");
  const std::string text = document_to_json(document).dump();
  for (const char* secret : {"opaque-secret-1", "opaque-secret-2", "opaque-secret-3", "opaque-key-body-4",
                             "opaque-bearer-credential-5"}) {
    CHECK_MESSAGE(!has(text, secret), secret);
  }
  CHECK(!has(text, kHf));
  const auto& host = document.hosts.front();
  CHECK(host.runs.front().started.argv[3] == "<redacted:secret, 8-15 chars>");
  CHECK(host.runs.front().started.argv[5] == "512");
  CHECK(host.configs.front().settings.at("zero_optimization.stage") == "2");
  CHECK(host.configs.front().settings.at("tokenizer.eos_token") == "</s>");
  CHECK(host.configs.front().settings.at("model.num_key_value_heads") == "8");
  CHECK(host.logs.front().tail[1].text == "<redacted:private key>");
  CHECK(host.logs.front().tail[3].text == "step 5");
  CHECK(host.reported.front().key == "package.torch");  // a bare "key" field is not a secret's name
  // Twice is once.
  auto again = document;
  REQUIRE(apply_redaction(again, Redaction::on));
  CHECK(again == document);
}

TEST_CASE("redact document: --no-redact keeps every value and says the document was not redacted") {
  auto document = document_with_secrets();
  const auto before = document_to_json(document).dump();
  REQUIRE(apply_redaction(document, Redaction::off));
  CHECK(document.redaction == "off");
  document.redaction.clear();
  CHECK(document_to_json(document).dump() == before);
  // A document redacted before stays so: its values all passed the step.
  auto redacted = document_with_secrets();
  REQUIRE(apply_redaction(redacted, Redaction::on));
  REQUIRE(apply_redaction(redacted, Redaction::off));
  CHECK(redacted.redaction == "on");
}
