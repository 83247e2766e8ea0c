#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "facts/version_order.h"

using ftdiag::facts::compare_versions;
using ftdiag::facts::looks_like_version;

namespace {

int sign(int v) { return (v > 0) - (v < 0); }

}  // namespace

TEST_CASE("version order: components compare as numbers, not as text") {
  CHECK(compare_versions("12.10", "12.9") > 0);
  CHECK(compare_versions("12.9", "12.10") < 0);
  CHECK(compare_versions("13.0", "12.10") > 0);
  CHECK(compare_versions("12.8", "12.8") == 0);
  CHECK(compare_versions("2.10", "2.9") > 0);  // torch releases
}

TEST_CASE("version order: a missing component counts as 0") {
  CHECK(compare_versions("12", "12.0") == 0);
  CHECK(compare_versions("12.0", "12") == 0);
  CHECK(compare_versions("12", "12.0.0") == 0);
  CHECK(compare_versions("12", "12.0.1") < 0);
  CHECK(compare_versions("12.1", "12") > 0);
}

TEST_CASE("version order: driver versions") {
  CHECK(compare_versions("535.104.05", "570.26") < 0);
  CHECK(compare_versions("570.26", "535.104.05") > 0);
  CHECK(compare_versions("570.124.06", "570.26") > 0);  // 124 > 26, not "1" < "2"
  CHECK(compare_versions("525.60.13", "525.60.13") == 0);
  CHECK(compare_versions("535.104.05", "535.104.5") == 0);  // leading zeros are the same number
  CHECK(compare_versions("450.80.02", "450.36.06") > 0);
}

TEST_CASE("version order: a local tag after '+' is ignored") {
  CHECK(compare_versions("2.7.0+cu128", "2.7") == 0);
  CHECK(compare_versions("2.7", "2.7.0+cu128") == 0);
  CHECK(compare_versions("2.7.0+cu128", "2.7.0+cu121") == 0);
  CHECK(compare_versions("2.7.1+cu118", "2.7.0+cu128") > 0);
  CHECK(compare_versions("2.7.0+cu128", "2.8") < 0);
}

TEST_CASE("version order: a component's leading digits are its value (pre-releases)") {
  CHECK(compare_versions("1.13.0a0", "1.13.0") == 0);
  CHECK(compare_versions("1.13.0a0", "1.13") == 0);
  CHECK(compare_versions("1.13.0a0", "1.13.1") < 0);
  CHECK(compare_versions("2.6.0rc1", "2.5.1") > 0);
  CHECK(compare_versions("2.8.0.dev20250601", "2.8") == 0);  // "dev20250601" has no leading digits: 0
  CHECK(compare_versions("x", "0") == 0);                    // no digits at all: 0
}

TEST_CASE("version order: huge components neither overflow nor reorder smaller ones") {
  const std::string huge(5000, '9');
  CHECK(compare_versions(huge, "1") > 0);
  CHECK(compare_versions("1", huge) < 0);
  CHECK(compare_versions("12." + huge, "12.9") > 0);
  CHECK(compare_versions("12." + huge, "13") < 0);  // the major still decides
  CHECK(compare_versions("99999999999999999999999", "18446744073709551615") >= 0);
  CHECK(compare_versions("10000000000000000000000", "9999999999") > 0);
  CHECK(compare_versions(huge, huge) == 0);
  // Many components: no recursion, no quadratic behaviour worth noticing.
  std::string many;
  for (int i = 0; i < 10000; ++i) many += "1.";
  many += "2";
  CHECK(compare_versions(many, many) == 0);
  CHECK(compare_versions(many, "1.1") > 0);
}

TEST_CASE("version order: empty strings are all zeros") {
  CHECK(compare_versions("", "") == 0);
  CHECK(compare_versions("", "0") == 0);
  CHECK(compare_versions("", "0.0.0") == 0);
  CHECK(compare_versions("", "1") < 0);
  CHECK(compare_versions("12.8", "") > 0);
  CHECK(compare_versions("+cu128", "") == 0);
}

TEST_CASE("version order: the order is antisymmetric and transitive over real versions") {
  const std::vector<std::string> ascending = {"11.8",       "12",          "12.1",       "12.4",   "12.8",
                                              "12.9",       "12.10",       "13.0",       "450.80.02", "525.60.13",
                                              "535.104.05", "570.26",      "570.124.06", "580.65.06"};
  for (std::size_t i = 0; i < ascending.size(); ++i) {
    for (std::size_t j = 0; j < ascending.size(); ++j) {
      CAPTURE(ascending[i]);
      CAPTURE(ascending[j]);
      CHECK(sign(compare_versions(ascending[i], ascending[j])) == (i < j ? -1 : (i > j ? 1 : 0)));
      CHECK(sign(compare_versions(ascending[i], ascending[j])) == -sign(compare_versions(ascending[j], ascending[i])));
    }
  }
}

TEST_CASE("version order: looks_like_version accepts versions") {
  for (const char* v : {"12.8", "12", "9.0", "535.104.05", "2.7.0+cu128", "1.13.0a0", "2.6.0rc1", "2.7.0-rc1", "0"}) {
    CAPTURE(v);
    CHECK(looks_like_version(v));
  }
}

TEST_CASE("version order: looks_like_version refuses what is not one") {
  for (const char* v : {"", "cu128", "v12.8", ".12", "12.", "12.8.", " 12.8", "12 .8", "12.8 ", "12,8", "none", "unknown"}) {
    CAPTURE(v);
    CHECK_FALSE(looks_like_version(v));
  }
}
