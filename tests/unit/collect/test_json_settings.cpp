#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "collect/configs/json_settings.h"

using namespace ftdiag;
using namespace ftdiag::collect;

TEST_CASE("read_json_settings: a file, a missing file, an unreadable one, a malformed one") {
  auto dir = std::filesystem::temp_directory_path() / ("ftdiag-json-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "ds_config.json") << R"({"zero_optimization": {"stage": 2}})";
  std::ofstream(dir / "broken.json") << "{\n\"stage\" 2}";

  auto good = read_json_settings(dir / "ds_config.json");
  REQUIRE(good);
  CHECK(good->at("zero_optimization.stage") == "2");

  auto absent = read_json_settings(dir / "nope.json");
  REQUIRE_FALSE(absent);
  CHECK(absent.missing().reason == MissingReason::not_present);
  CHECK(absent.missing().detail.find("nope.json") != std::string::npos);

  auto broken = read_json_settings(dir / "broken.json");
  REQUIRE_FALSE(broken);
  CHECK(broken.missing().reason == MissingReason::unparseable);
  CHECK(broken.missing().detail.find("broken.json: line 2, column 9: ") != std::string::npos);

  auto directory = read_json_settings(dir);
  REQUIRE_FALSE(directory);
  CHECK(directory.missing().reason != MissingReason::unparseable);

  if (::geteuid() != 0) {  // root reads a file whatever its mode
    ::chmod((dir / "ds_config.json").c_str(), 0);
    auto denied = read_json_settings(dir / "ds_config.json");
    REQUIRE_FALSE(denied);
    CHECK(denied.missing().reason == MissingReason::permission_denied);
  }
  std::filesystem::remove_all(dir);
}
