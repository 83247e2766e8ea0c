// What a user pastes is not always what a tool printed: cut reports, Windows
// line ends, binary files, one enormous line, and text that merely looks a
// little like a report.
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "environment_report_checks.h"
#include "environment_report_fixtures.h"
#include "parse/reports/environment_report.h"

using namespace ftdiag;
using namespace ftdiag::testing;
using parse::parse_environment_report;

TEST_CASE("environment report: CRLF line ends read like LF") {
  std::string crlf;
  for (char c : kCollectEnvTorch21) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  const auto values = parse_environment_report(crlf);
  CHECK(stated(values, "torch.cuda_version") == "12.1");
  CHECK(stated(values, "gpu.driver_version") == "535.104.05");
  CHECK(stated(values, "host.os") == "Ubuntu 22.04.3 LTS (x86_64)");
  CHECK(stated(values, "gpu.count") == "2");
}

TEST_CASE("environment report: a report cut anywhere gives a prefix of its values, never a wrong one") {
  const auto whole = parse_environment_report(kNvidiaSmi);
  for (std::size_t cut = 0; cut <= kNvidiaSmi.size(); cut += 7) {
    CAPTURE(cut);
    for (const auto& value : parse_environment_report(kNvidiaSmi.substr(0, cut))) {
      CAPTURE(value.key);
      // A memory row cut inside its number would state less: only whole numbers count.
      if (value.key.ends_with("memory_bytes")) CHECK(value.value == stated(whole, value.key));
    }
  }
  const auto cut_in_table = parse_environment_report(kNvidiaSmi.substr(0, kNvidiaSmi.find("|   1  NVIDIA")));
  CHECK(stated(cut_in_table, "gpu.count") == "1");
  const auto cut_in_list = parse_environment_report(kCollectEnvTorch21.substr(0, kCollectEnvTorch21.find("GPU 1:")));
  CHECK(stated(cut_in_list, "gpu.count") == "1");
}

TEST_CASE("environment report: a line of 10 MB is skipped whole, the lines around it still read") {
  std::string text = "PyTorch version: 2.1.0+cu121\n";
  text += std::string(10 << 20, 'x') + "Nvidia driver version: 535.104.05";
  text += "\nCUDA used to build PyTorch: 12.1\n";
  const auto values = parse_environment_report(text);
  CHECK(stated(values, "package.torch") == "2.1.0+cu121");
  CHECK(stated(values, "gpu.driver_version") == "(none)");
  CHECK(stated(values, "torch.cuda_version") == "12.1");
  CHECK(stated_line(values, "torch.cuda_version") == 3);
}

TEST_CASE("environment report: binary garbage and ordinary logs state nothing") {
  std::mt19937 random(7);
  std::string garbage(1 << 20, '\0');
  for (auto& c : garbage) c = static_cast<char>(random() & 0xff);
  CHECK(parse_environment_report(garbage).size() < 4);  // chance may spell "GPU 0: x"; never more than a few
  CHECK(parse_environment_report("").empty());
  CHECK(parse_environment_report("\n\n\r\n").empty());
  CHECK(parse_environment_report(
            "{'loss': 1.2345, 'learning_rate': 2e-05, 'epoch': 0.5}\n"
            "Epoch 3: 100%|##########| 500/500 [01:00<00:00, 8.00it/s]\n"
            "  \"transformers_version\": \"4.31.0\",\n"
            "Saving model checkpoint to ./out/checkpoint-500\n"
            "The version 2 of the API is deprecated.\n"
            "python: can't open file 'train.py'\n")
            .empty());
}

TEST_CASE("environment report: values are bounded in length and number") {
  const std::string long_os = "OS: " + std::string(3000, 'u') + "\n";
  const auto values = parse_environment_report(long_os);
  REQUIRE(values.size() == 1);
  CHECK(values.front().value.size() == parse::kMaxReportValueBytes);
  std::string many;
  for (int i = 0; i < 3000; ++i) many += "torch==1." + std::to_string(i) + "\n";
  CHECK(parse_environment_report(many).size() == parse::kMaxReportedValues);
}
