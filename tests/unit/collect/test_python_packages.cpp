// Packages found on a sys.path of fixture trees (tests/fixtures/python):
// which copy wins, what its build recorded, and what is wrong.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <vector>

#include "collect/python_env/python_packages.h"
#include "python_fixtures.h"

using namespace ftdiag::collect;
using ftdiag::collect::testing::python_fixture;
using ftdiag::collect::testing::ScratchDirectory;

namespace {

const ftdiag::model::PythonPackage* package(const FoundPackages& found, const std::string& name) {
  for (const auto& package : found.packages) {
    if (package.name == name) return &package;
  }
  return nullptr;
}

bool mentions(const std::vector<std::string>& problems, const std::string& text) {
  return std::any_of(problems.begin(), problems.end(),
                     [&](const std::string& problem) { return problem.find(text) != std::string::npos; });
}

std::vector<std::string> names(const FoundPackages& found) {
  std::vector<std::string> names;
  for (const auto& package : found.packages) names.push_back(package.name);
  return names;
}

}  // namespace

TEST_CASE("python packages: a cu128 torch with its nvidia wheels and extensions built for older CUDA") {
  const std::string site = python_fixture("torch-cu128");
  const std::vector<std::string> sys_path = {site};
  const auto found = find_python_packages(sys_path);
  CHECK(found.problems.empty());
  CHECK(names(found) == std::vector<std::string>{"bitsandbytes", "deepspeed", "flash-attn", "nvidia-cublas-cu12",
                                                 "nvidia-cuda-runtime-cu12", "nvidia-cudnn-cu12", "nvidia-nccl-cu12",
                                                 "torch", "transformers"});
  const auto* torch = package(found, "torch");
  REQUIRE(torch);
  CHECK(torch->version == "2.7.0+cu128");
  CHECK(torch->location == site);
  CHECK(torch->build == std::map<std::string, std::string>{{"cuda", "12.8"},
                                                           {"git_version", "134179474539648ba7dee1317959529fbd0e7f89"},
                                                           {"local_tag", "cu128"}});
  CHECK(package(found, "nvidia-cuda-runtime-cu12")->version == "12.8.57");
  CHECK(package(found, "nvidia-cublas-cu12")->version == "12.8.3.14");
  CHECK(package(found, "nvidia-nccl-cu12")->version == "2.26.2");
  CHECK(package(found, "nvidia-cudnn-cu12")->version == "9.7.1.26");
  const auto* deepspeed = package(found, "deepspeed");
  CHECK(deepspeed->version == "0.14.0");
  CHECK(deepspeed->build.at("torch_version") == "2.1");
  CHECK(deepspeed->build.at("cuda_version") == "12.1");
  CHECK(deepspeed->build.at("installed_ops") == "cpu_adam,fused_adam");
  CHECK(package(found, "bitsandbytes")->build.at("cuda_libraries") == "118");
  CHECK(package(found, "flash-attn")->version == "2.5.8");
  CHECK(package(found, "flash-attn")->build.empty());
}

TEST_CASE("python packages: the first copy on sys.path wins, the one below is shadowed") {
  const std::vector<std::string> sys_path = {python_fixture("torch-cu128"), "/nonexistent/python311.zip",
                                             python_fixture("shadowed")};
  const auto found = find_python_packages(sys_path);
  CHECK(package(found, "torch")->version == "2.7.0+cu128");
  CHECK(package(found, "nvidia-cuda-runtime-cu12")->version == "12.8.57");
  CHECK(mentions(found.problems, "torch 2.1.0+cu121 in " + python_fixture("shadowed") +
                                     " is shadowed by torch 2.7.0+cu128 in " + python_fixture("torch-cu128")));
  CHECK(mentions(found.problems, "nvidia-cuda-runtime-cu12 12.1.105 in " + python_fixture("shadowed") + " is shadowed"));
  CHECK(found.problems.size() == 2);

  const std::vector<std::string> reversed = {python_fixture("shadowed"), python_fixture("torch-cu128")};
  const auto older_first = find_python_packages(reversed);
  CHECK(package(older_first, "torch")->version == "2.1.0+cu121");
  CHECK(package(older_first, "torch")->build.at("cuda") == "12.1");
}

TEST_CASE("python packages: Debian's torch states its version in version.py, egg-info in both forms") {
  const std::vector<std::string> sys_path = {python_fixture("cpu-egg-info")};
  const auto found = find_python_packages(sys_path);
  CHECK(found.problems.empty());
  const auto* torch = package(found, "torch");
  REQUIRE(torch);
  CHECK(torch->version == "1.13.0a0");  // version.py's, not the egg-info's "+gitunknown"
  CHECK(torch->build.at("cpu_only") == "true");
  CHECK(torch->build.count("cuda") == 0);
  CHECK(package(found, "accelerate")->version == "0.20.3");
  CHECK(package(found, "peft")->version == "0.10.0");
}

TEST_CASE("python packages: broken installs are listed with what is wrong, in words") {
  const std::string site = python_fixture("broken");
  const std::vector<std::string> sys_path = {site};
  const auto found = find_python_packages(sys_path);
  // torch/ without version.py or metadata: found, version unknown.
  REQUIRE(package(found, "torch"));
  CHECK(package(found, "torch")->version.empty());
  CHECK(mentions(found.problems, "could not read " + site + "/torch/version.py"));
  CHECK(mentions(found.problems, "no version found for torch"));
  // METADATA that is not metadata: the folder's name gives the version.
  CHECK(package(found, "transformers")->version == "4.40.0");
  CHECK(mentions(found.problems, "transformers-4.40.0.dist-info/METADATA"));
  // A build file that is code, not literals: the dist-info's version, no build keys.
  CHECK(package(found, "deepspeed")->version == "0.15.0");
  CHECK(package(found, "deepspeed")->build.empty());
  CHECK(mentions(found.problems, "git_version_info_installed.py"));
  // Metadata without the package folder.
  CHECK(package(found, "trl")->version == "0.9.0");
  CHECK(mentions(found.problems, "trl 0.9.0 in " + site + " is recorded, but no sys.path directory holds its package folder trl/"));
  // A dist-info without METADATA.
  CHECK(package(found, "nvidia-nccl-cu12")->version == "2.18.1");
  // A text file named like a library still says which CUDA it is for.
  CHECK(package(found, "bitsandbytes")->build.at("cuda_libraries") == "121");
}

TEST_CASE("python packages: special files, unreadable folders and odd sys.path entries never block or crash") {
  ScratchDirectory scratch;
  std::filesystem::create_directories(scratch.root() / "site" / "torch");
  scratch.write("site/torch/__init__.py", "");
  REQUIRE(::mkfifo(scratch.path("site/torch/version.py").c_str(), 0644) == 0);
  std::filesystem::create_directories(scratch.root() / "site" / "torch-2.0.0.dist-info");
  REQUIRE(::mkfifo(scratch.path("site/torch-2.0.0.dist-info/METADATA").c_str(), 0644) == 0);
  scratch.write("site/deepspeed/__init__.py", "");
  std::filesystem::create_directories(scratch.root() / "site" / "deepspeed" / "git_version_info_installed.py");
  scratch.write("site/flash_attn", "a file where a package folder should be");
  scratch.write("archive.zip", "PK\x03\x04");
  const std::vector<std::string> sys_path = {"", scratch.path("archive.zip"), scratch.path("site"),
                                             scratch.path("site"), "/nonexistent", "relative/dir"};
  const auto found = find_python_packages(sys_path);
  REQUIRE(package(found, "torch"));
  CHECK(package(found, "torch")->version == "2.0.0");  // from the folder's name
  CHECK(mentions(found.problems, "is not a regular file"));
  CHECK(package(found, "deepspeed"));
  CHECK_FALSE(package(found, "flash-attn"));

  std::vector<std::string> long_path(1000, scratch.path("site"));
  CHECK(mentions(find_python_packages(long_path).problems, "sys.path has 1000 entries"));
}
