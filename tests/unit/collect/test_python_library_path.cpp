// LD_LIBRARY_PATH: each directory in order, with the runtimes it holds.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "collect/python_env/library_path.h"
#include "python_fixtures.h"

using namespace ftdiag::collect;
using ftdiag::collect::testing::python_fixture;
using ftdiag::collect::testing::ScratchDirectory;

TEST_CASE("python library path: the runtimes each directory provides, in order") {
  ScratchDirectory scratch;
  scratch.write("cuda/lib64/libcudart.so.12.8.57", "");
  scratch.write("cuda/lib64/libcudart.so.12", "");
  scratch.write("cuda/lib64/libcublasLt.so.12", "");
  scratch.write("cuda/lib64/libcudart_static.a", "");
  scratch.write("cuda/lib64/libnvToolsExt.so.1", "");
  scratch.write("cuda/lib64/stubs/libcuda.so", "");
  const std::string value = python_fixture("cuda-11") + "::" + scratch.path("cuda/lib64") + ":/nonexistent:" +
                            python_fixture("cuda-11") + ":" + scratch.path("cuda/lib64/stubs");
  const auto reading = read_library_path(value);
  REQUIRE(reading.entries.size() == 4);
  CHECK(reading.entries[0].directory == python_fixture("cuda-11"));
  CHECK(reading.entries[0].provides == std::vector<std::string>{"libcudart.so.11.0"});
  CHECK(reading.entries[1].provides ==
        std::vector<std::string>{"libcublasLt.so.12", "libcudart.so.12", "libcudart.so.12.8.57"});
  CHECK(reading.entries[2].directory == "/nonexistent");
  CHECK(reading.entries[2].provides.empty());
  CHECK(reading.entries[3].provides == std::vector<std::string>{"libcuda.so"});
  REQUIRE(reading.problems.size() == 1);
  CHECK(reading.problems.front().find("/nonexistent") != std::string::npos);
}

TEST_CASE("python library path: empty and huge values") {
  CHECK(read_library_path("").entries.empty());
  CHECK(read_library_path(":::").entries.empty());
  std::string many;
  for (int i = 0; i < 100; ++i) many += "/nonexistent/" + std::to_string(i) + ":";
  const auto reading = read_library_path(many);
  CHECK(reading.entries.size() == 64);
  CHECK(reading.problems.back().find("more than 64 directories") != std::string::npos);
}
