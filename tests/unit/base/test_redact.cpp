// What the redaction step finds and what it must leave alone
// (docs/redaction.md): secrets of every shape a training job is given, and
// the diagnostic values the rules need that merely look like them.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "base/redact.h"
#include "base/token_shapes.h"

using namespace ftdiag;

namespace {

const std::string kHf = "hf_" + std::string(17, 'a') + std::string(17, 'Z');  // 37 characters, as issued
const std::string kJwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
const std::string kPem =
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAMwAAAAtzc2gtZWQyNTUxOQ\n"
    "-----END OPENSSH PRIVATE KEY-----";

}  // namespace

TEST_CASE("redact: names that say secret by their last part, not counts, ids or vocabulary") {
  for (auto name : {"hub_token", "HF_TOKEN", "WANDB_API_KEY", "wandb_api_key", "api-key", "--api-key", "apikey", "apiKey",
                    "client.secret", "password", "passwd", "aws_credentials", "auth_token", "access_token",
                    "aws_secret_access_key", "AWS_SESSION_TOKEN", "GITHUB_PAT", "hfToken", "env.HF_TOKEN", "args.hub_token"}) {
    CHECK_MESSAGE(name_says_secret(name), name);
  }
  for (auto name : {"max_new_tokens", "num_tokens", "tokenizer", "tokenizer_name", "pad_token_id", "eos_token", "bos_token",
                    "pad_token", "tokenizer.eos_token", "image_token", "num_key_value_heads", "key_padding_mask", "keep_keys",
                    "keys", "key", "monkey", "learning_rate", "token_file", "api_key_file", "AWS_ACCESS_KEY_ID", "PWD"}) {
    CHECK_MESSAGE(!name_says_secret(name), name);
  }
}

TEST_CASE("redact: every known token shape anywhere in a line, named by kind without its length") {
  CHECK(redact_text("login with " + kHf + " now") == "login with <redacted:hf token> now");
  const std::pair<std::string, std::string> tokens[] = {
      {"sk-" + std::string(40, 'b'), "openai key"},
      {"sk-proj-" + std::string(40, 'c'), "openai key"},
      {"ghp_" + std::string(36, 'd'), "github token"},
      {"gho_" + std::string(36, 'd'), "github token"},
      {"ghs_" + std::string(36, 'd'), "github token"},
      {"github_pat_" + std::string(60, 'e'), "github token"},
      {"AKIAABCDEFGHIJKLMNOP", "aws key id"},
      {"ASIAABCDEFGHIJKLMNOP", "aws key id"},
      {"xoxb-" + std::string(12, '1') + "-" + std::string(24, 'x'), "slack token"},
      {"AIza" + std::string(35, 'Q'), "google api key"},
      {kJwt, "jwt"},
  };
  for (const auto& [shaped, kind] : tokens) {
    const std::string token = shaped;
    INFO(token);
    CHECK(redact_text("x " + token + " y") == "x <redacted:" + kind + "> y");
    CHECK(redact_text("see-" + token) == "see-<redacted:" + kind + ">");  // after a dash it starts a word
  }
  CHECK(redact_text("k " + kPem + " z") == "k <redacted:private key> z");
  CHECK(redact_text("plain hf_short words") == "plain hf_short words");
}

TEST_CASE("redact: a value named secret keeps its name and a class of its length, never the length") {
  CHECK(redact_text("WANDB_API_KEY=0123456789abcdef0123456789abcdef01234567") == "WANDB_API_KEY=<redacted:secret, 32-63 chars>");
  CHECK(redact_text("password: hunter2 ok") == "password: <redacted:secret, 1-7 chars> ok");
  CHECK(redact_text("password: hunter22 ok") == "password: <redacted:secret, 8-15 chars> ok");
  CHECK(redact_text(R"({"wandb_api_key": "abcdefghijklmnopqrstu"})") == R"({"wandb_api_key": "<redacted:secret, 16-31 chars>"})");
  CHECK(redact_text("{'api_key': 'abc123'}") == "{'api_key': '<redacted:secret, 1-7 chars>'}");
  CHECK(redact_text("secret=" + std::string(70, 'x')) == "secret=<redacted:secret, 64+ chars>");
  CHECK(redact_text("hf_token: " + kHf) == "hf_token: <redacted:hf token>");
  CHECK(redact_text("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY") ==
        "aws_secret_access_key = <redacted:secret, 32-63 chars>");
  CHECK(redact_text("export HF_TOKEN=\"abc def\"") == "export HF_TOKEN=\"<redacted:secret, 1-7 chars>\"");
  CHECK(redact_text("python train.py --hub_token s3cr3tvalue --bf16") == "python train.py --hub_token <redacted:secret, 8-15 chars> --bf16");
  CHECK(redact_text("--api-key=abcdef") == "--api-key=<redacted:secret, 1-7 chars>");
  CHECK(redact_text("git clone https://user:pa55w0rd@host/repo") == "git clone https://user:<redacted:password, 8-15 chars>@host/repo");
  CHECK(redact_text("https://host/path:x@y") == "https://host/path:x@y");
  CHECK(redact_text("Authorization: Bearer " + kJwt) == "Authorization: Bearer <redacted:jwt>");
  CHECK(redact_text("Authorization: Basic dXNlcjpwYXNzd29yZA==") == "Authorization: Basic <redacted:secret, 16-31 chars>");
  CHECK(redact_text("curl -H 'Bearer abcdefghijklmnopqrstuvwx'") == "curl -H 'Bearer <redacted:secret, 16-31 chars>'");
}

TEST_CASE("redact: a private key block over several lines of a sequence is removed whole") {
  LineRedactor lines;
  CHECK(lines.text("key follows") == "key follows");
  CHECK(lines.text("-----BEGIN RSA PRIVATE KEY-----") == "<redacted:private key>");
  CHECK(lines.text("MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn") == "<redacted:private key>");
  CHECK(lines.text("-----END RSA PRIVATE KEY----- done") == "<redacted:private key> done");
  CHECK(lines.text("step 10 loss 1.5") == "step 10 loss 1.5");
  CHECK(redact_text("private_key: |\n  " + kPem) == "private_key: |\n  <redacted:private key>");
}

TEST_CASE("redact: diagnostic values that look like secrets are kept") {
  for (const std::string& line : std::vector<std::string>{"max_new_tokens: 512", "tokenizer_name: meta-llama/Llama-2-7b-hf", "pad_token_id: 0",
                           "eos_token: </s>", "\"eos_token\": \"<|endoftext|>\"", "num_key_value_heads: 8",
                           "key_padding_mask=None", "keep_keys: [input_ids, labels]", "use_auth_token: true",
                           "--hub_token $HF_TOKEN", "HF_TOKEN=${HF_TOKEN}", "max_tokens: 4096",
                           "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                           "commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
                           "/home/u/.cache/huggingface/hub/models--meta-llama/snapshots/4b825dc642cb6eb9a060e54bf8d69288fbee4904",
                           "hf_transformers_cache_directory_is_here_ok", "task-sk-learn", "if token == expected:",
                           "--token_file /run/secrets/hf", "AWS_ACCESS_KEY_ID=foo", "ds_config.json", "a key: value"}) {
    CHECK(redact_text(line) == line);
  }
}

TEST_CASE("redact: argv pairs, environment values, and redacting twice changes nothing") {
  const std::vector<std::string> argv{"python", "train.py", "--hub_token", "secretvalue", "--api-key=abc",
                                      "--max_new_tokens", "512", "WANDB_API_KEY=0123abcd89", "--report_to", "wandb",
                                      "--push_to=https://alice:s3cretPass@example.invalid/repo", "--use_auth_token", "True"};
  const auto out = redact_argv(argv);
  REQUIRE(out.size() == argv.size());
  CHECK(out[2] == "--hub_token");
  CHECK(out[3] == "<redacted:secret, 8-15 chars>");
  CHECK(out[4] == "--api-key=<redacted:secret, 1-7 chars>");
  CHECK(out[6] == "512");
  CHECK(out[7] == "WANDB_API_KEY=<redacted:secret, 8-15 chars>");
  CHECK(out[9] == "wandb");
  CHECK(out[10] == "--push_to=https://alice:<redacted:password, 8-15 chars>@example.invalid/repo");
  CHECK(out[12] == "True");
  CHECK(redact_argv(out) == out);
  CHECK(redact_env_value("HF_TOKEN", "abc") == "<redacted:secret, 1-7 chars>");
  CHECK(redact_env_value("HF_TOKEN", kHf) == "<redacted:hf token>");
  CHECK(redact_env_value("PATH", "/usr/bin") == "/usr/bin");
  CHECK(redact_env_value("PAD_TOKEN_ID", "0") == "0");
  for (const std::string& text : std::vector<std::string>{"password: hunter2 ok", "Authorization: Bearer " + kJwt, "x " + kPem, "--hub_token abc def",
                           "git clone https://user:pa55@host/repo", "{\"api_key\": \"abc123\"}"}) {
    const std::string once = redact_text(text);
    CHECK(redact_text(once) == once);
  }
}

TEST_CASE("redact: text dressed as a marker with a token inside is still redacted") {
  CHECK(redact_text("<redacted:" + kHf + ">") == "<redacted:<redacted:hf token>>");
}
