#include <doctest/doctest.h>

#include <string>

#include "base/redact.h"

using namespace ftdiag;

namespace {
bool has(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("redact: names that say secret are whole parts, not counts") {
  for (auto name : {"hub_token", "HF_TOKEN", "WANDB_API_KEY", "api-key", "apikey", "client.secret", "password", "passwd",
                    "aws_credentials", "auth_token", "access_token"}) {
    CHECK_MESSAGE(name_says_secret(name), name);
  }
  for (auto name : {"max_new_tokens", "num_tokens", "tokenizer", "keep_keys", "keys", "monkey", "learning_rate"}) {
    CHECK_MESSAGE(!name_says_secret(name), name);
  }
}

TEST_CASE("redact: every known token shape anywhere in a line") {
  const std::string hf = "hf_" + std::string(34, 'a');
  const std::string line = "login with " + hf + " now";
  CHECK(redact_text(line) == "login with <redacted:hf token, 37 chars> now");
  for (std::string token : {"sk-" + std::string(40, 'b'), "sk-proj-" + std::string(40, 'c'), "ghp_" + std::string(36, 'd'),
                            "gho_" + std::string(36, 'd'), "ghs_" + std::string(36, 'd'), "github_pat_" + std::string(60, 'e'),
                            std::string("AKIAABCDEFGHIJKLMNOP"), std::string("ASIAABCDEFGHIJKLMNOP"), "xoxb-" + std::string(30, '1'),
                            std::string("eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl")}) {
    const std::string out = redact_text("x " + token + " y");
    CHECK_MESSAGE(!has(out, token), token);
    CHECK(has(out, "<redacted:"));
  }
  const std::string pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY-----";
  CHECK(redact_text("k " + pem + " z") == "k <redacted:private key, " + std::to_string(pem.size()) + " chars> z");
  CHECK(redact_text("plain hf_short words") == "plain hf_short words");
}

TEST_CASE("redact: NAME=value, NAME: value, quoted JSON pairs and URL credentials") {
  CHECK(redact_text("WANDB_API_KEY=0123456789abcdef0123456789abcdef01234567") ==
        "WANDB_API_KEY=<redacted:secret, 40 chars>");
  CHECK(redact_text("password: hunter2 ok") == "password: <redacted:secret, 7 chars> ok");
  CHECK(redact_text(R"({"api_key": "abc123"})") == R"({"api_key": "<redacted:secret, 6 chars>"})");
  CHECK(redact_text("max_new_tokens=512") == "max_new_tokens=512");
  CHECK(redact_text("git clone https://user:pa55@host/repo") == "git clone https://user:<redacted:password, 4 chars>@host/repo");
  CHECK(redact_text("https://host/path:x@y") == "https://host/path:x@y");
}

TEST_CASE("redact: argv pairs and environment values") {
  const std::vector<std::string> argv{"python", "train.py", "--hub_token", "secretvalue", "--api-key=abc",
                                      "--max_new_tokens", "512"};
  const auto out = redact_argv(argv);
  REQUIRE(out.size() == argv.size());
  CHECK(out[2] == "--hub_token");
  CHECK(out[3] == "<redacted:secret, 11 chars>");
  CHECK(out[4] == "--api-key=<redacted:secret, 3 chars>");
  CHECK(out[6] == "512");
  CHECK(redact_env_value("HF_TOKEN", "abc") == "<redacted:secret, 3 chars>");
  CHECK(redact_env_value("PATH", "/usr/bin") == "/usr/bin");
}
