// Native libraries of found packages, walked where the catalogue says each
// package keeps them, and only those linking a CUDA or torch runtime kept.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "collect/python_env/native_libraries.h"
#include "python_fixtures.h"

using namespace ftdiag::collect;
using ftdiag::model::NativeLibrary;
using ftdiag::model::PythonPackage;
using ftdiag::collect::testing::python_fixture;
using ftdiag::collect::testing::ScratchDirectory;

namespace {

const NativeLibrary* library(const FoundLibraries& found, const std::string& path) {
  for (const auto& library : found.libraries) {
    if (library.path == path) return &library;
  }
  return nullptr;
}

PythonPackage at(const std::string& name, const std::string& location) { return PythonPackage{name, "", location, {}}; }

}  // namespace

TEST_CASE("python native libraries: torch, flash-attn, DeepSpeed and bitsandbytes of the cu128 tree") {
  const std::string site = python_fixture("torch-cu128");
  const std::vector<PythonPackage> packages = {at("torch", site), at("flash-attn", site), at("deepspeed", site),
                                               at("bitsandbytes", site), at("transformers", site),
                                               at("nvidia-cuda-runtime-cu12", site)};
  const auto found = find_native_libraries(packages);
  CHECK(found.problems.empty());
  CHECK(found.libraries.size() == 4);  // libshm.so links no runtime: left out

  const auto* flash = library(found, site + "/flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so");
  REQUIRE(flash);
  CHECK(flash->package == "flash_attn");
  CHECK(flash->needed == std::vector<std::string>{"libcudart.so.11.0", "libtorch_cuda.so"});

  const auto* torch = library(found, site + "/torch/lib/libtorch_cuda.so");
  REQUIRE(torch);
  CHECK(torch->package == "torch");
  CHECK(torch->needed == std::vector<std::string>{"libcudart.so.12"});

  const auto* op = library(found, site + "/deepspeed/ops/adam/fused_adam_op.cpython-311-x86_64-linux-gnu.so");
  REQUIRE(op);
  CHECK(op->package == "deepspeed");
  // In the order of the dynamic section, which the linker chose.
  auto needed = op->needed;
  std::sort(needed.begin(), needed.end());
  CHECK(needed == std::vector<std::string>{"libcudart.so.12", "libtorch_cuda.so"});

  const auto* bnb = library(found, site + "/bitsandbytes/libbitsandbytes_cuda118.so");
  REQUIRE(bnb);
  CHECK(bnb->needed == std::vector<std::string>{"libcudart.so.11.0"});
}

TEST_CASE("python native libraries: a file that is not ELF is a problem, not a library") {
  const std::string site = python_fixture("broken");
  const std::vector<PythonPackage> packages = {at("bitsandbytes", site)};
  const auto found = find_native_libraries(packages);
  CHECK(found.libraries.empty());
  REQUIRE(found.problems.size() == 1);
  CHECK(found.problems.front().find("libbitsandbytes_cuda121.so") != std::string::npos);
  CHECK(found.problems.front().find("not an ELF file") != std::string::npos);
}

TEST_CASE("python native libraries: folder links are not followed, file links are, depth and problems bounded") {
  ScratchDirectory scratch;
  // xformers/ nested 12 deep, a link back up (a loop), a link to a real
  // library, and 30 fake libraries.
  std::string deep = "site/xformers";
  for (int i = 0; i < 12; ++i) deep += "/d";
  scratch.write(deep + "/deep.so", "too deep to be read");
  std::filesystem::create_directory_symlink(scratch.root() / "site" / "xformers", scratch.root() / "site/xformers/loop");
  std::filesystem::create_symlink(ftdiag::collect::testing::python_fixture(
                                      "torch-cu128/flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so"),
                                  scratch.root() / "site/xformers/linked.so");
  for (int i = 0; i < 30; ++i) scratch.write("site/xformers/ops/fake" + std::to_string(i) + ".so", "text");
  const std::vector<PythonPackage> packages = {at("xformers", scratch.path("site"))};
  const auto found = find_native_libraries(packages);
  REQUIRE(found.libraries.size() == 1);
  CHECK(found.libraries.front().path == scratch.path("site/xformers/linked.so"));
  CHECK(found.libraries.front().package == "xformers");
  CHECK(found.problems.size() == 21);  // 20 listed, then the count of the rest
  CHECK(found.problems.back() == "10 more problems with native libraries");
  CHECK(std::none_of(found.problems.begin(), found.problems.end(),
                     [](const std::string& problem) { return problem.find("deep.so") != std::string::npos; }));
}
