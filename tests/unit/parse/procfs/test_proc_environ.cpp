// Only the variables that place a process in a distributed job are kept
// from /proc/PID/environ: never a token or a key.
#include <doctest/doctest.h>

#include <string>

#include "parse/procfs/proc_environ.h"

using namespace ftdiag::parse;

TEST_CASE("environ: role variables are kept, everything else is dropped") {
  const std::string text = std::string("PATH=/usr/bin\0RANK=3\0HF_TOKEN=hf_secret\0LOCAL_RANK=1\0", 53) +
                           std::string("WORLD_SIZE=8\0AWS_SECRET_ACCESS_KEY=x\0=odd\0NOEQUALS\0SLURM_PROCID=3", 65);
  const auto kept = parse_role_environment(text);
  CHECK(kept.size() == 4);
  CHECK(kept.at("RANK") == "3");
  CHECK(kept.at("LOCAL_RANK") == "1");
  CHECK(kept.at("WORLD_SIZE") == "8");
  CHECK(kept.at("SLURM_PROCID") == "3");
  CHECK(kept.count("HF_TOKEN") == 0);
  CHECK(kept.count("AWS_SECRET_ACCESS_KEY") == 0);
}

TEST_CASE("environ: empty, truncated and binary text give what they can") {
  CHECK(parse_role_environment("").empty());
  CHECK(parse_role_environment(std::string("RANK", 4)).empty());
  CHECK(parse_role_environment(std::string("\0\0\0RANK=\xff\xfe", 10)).at("RANK") == "\xff\xfe");
  const std::string long_value = "RANK=" + std::string(10000, '7');
  CHECK(parse_role_environment(long_value).at("RANK").size() == 256);
}
