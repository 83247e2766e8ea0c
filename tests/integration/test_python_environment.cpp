// read_python_environment against real interpreters: Debian's python3 with
// its python3-torch (1.13, CPU), the same with the cu128 fixture tree first
// on PYTHONPATH and reached through a `deepspeed` launcher's shebang, and
// interpreters that hang, fail or print garbage.
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "collect/python_env/python_environment.h"
#include "skip.h"

#ifndef FTDIAG_PYTHON_FIXTURES_DIR
#error "FTDIAG_PYTHON_FIXTURES_DIR must name the build tree's tests/fixtures/python"
#endif

namespace {

using ftdiag::MissingReason;
using ftdiag::collect::PythonEnvironmentRequest;
using ftdiag::collect::read_python_environment;
using ftdiag::model::PythonEnvironment;
using ftdiag::model::PythonPackage;
namespace fs = std::filesystem;

constexpr const char* kDebianPython = "/usr/bin/python3";
constexpr const char* kDebianSite = "/usr/lib/python3/dist-packages";

std::string fixture(const std::string& relative) { return (fs::path(FTDIAG_PYTHON_FIXTURES_DIR) / relative).string(); }

bool debian_torch_installed() {
  return fs::exists(kDebianPython) && fs::exists(fs::path(kDebianSite) / "torch" / "version.py");
}

const PythonPackage* package(const PythonEnvironment& python, const std::string& name) {
  for (const auto& package : python.packages) {
    if (package.name == name) return &package;
  }
  return nullptr;
}

bool mentions(const std::vector<std::string>& problems, const std::string& text) {
  return std::any_of(problems.begin(), problems.end(),
                     [&](const std::string& problem) { return problem.find(text) != std::string::npos; });
}

// A folder for launchers and fake interpreters, removed at the end.
struct Scratch {
  fs::path root;
  Scratch() {
    char pattern[] = "/tmp/ftdiag-pyenv-XXXXXX";
    REQUIRE(::mkdtemp(pattern) != nullptr);
    root = pattern;
  }
  ~Scratch() {
    std::error_code ignored;
    fs::remove_all(root, ignored);
  }
  std::string script(const std::string& name, const std::string& content) const {
    const fs::path path = root / name;
    std::ofstream(path) << content;
    fs::permissions(path, fs::perms::owner_all);
    return path.string();
  }
};

PythonEnvironment read_with(std::optional<std::string> interpreter, std::vector<std::string> command,
                            std::vector<std::string> environment, std::chrono::milliseconds deadline) {
  PythonEnvironmentRequest request;
  request.interpreter = std::move(interpreter);
  request.command = std::move(command);
  request.environment = std::move(environment);
  request.deadline = deadline;
  return read_python_environment(request);
}

}  // namespace

TEST_CASE("python environment: Debian's python3 and its CPU-only torch 1.13") {
  if (!debian_torch_installed()) FTDIAG_SKIP("needs /usr/bin/python3 with Debian's python3-torch");
  const auto python = read_with(kDebianPython, {}, {"PATH=/usr/bin:/bin", "LANG=C.UTF-8"}, std::chrono::seconds(10));
  REQUIRE_MESSAGE(python.read, (python.read ? "" : python.read.missing().detail));
  CHECK(python.interpreter == kDebianPython);
  CHECK(python.found_by == "--python");
  CHECK(python.command.starts_with("/usr/bin/python3 -B -S -c "));
  CHECK(python.version.starts_with("3."));
  CHECK(std::find(python.sys_path.begin(), python.sys_path.end(), kDebianSite) != python.sys_path.end());
  CHECK(std::find(python.sys_path.begin(), python.sys_path.end(), "") == python.sys_path.end());
  const auto* torch = package(python, "torch");
  REQUIRE(torch);
  CHECK(torch->version.starts_with("1.13"));
  CHECK(torch->location == kDebianSite);
  CHECK(torch->build.at("cpu_only") == "true");
  CHECK(torch->build.count("cuda") == 0);
  // Debian's torch/lib links into /usr/lib: libtorch_cpu.so needs libc10.so.1.13.
  CHECK(std::any_of(python.libraries.begin(), python.libraries.end(), [](const auto& library) {
    return library.package == "torch" &&
           std::find(library.needed.begin(), library.needed.end(), "libc10.so.1.13") != library.needed.end();
  }));
  CHECK(python.ld_library_path.empty());
}

TEST_CASE("python environment: deepspeed's shebang, the cu128 tree first on PYTHONPATH, LD_LIBRARY_PATH") {
  if (!fs::exists(kDebianPython)) FTDIAG_SKIP("needs /usr/bin/python3");
  Scratch scratch;
  const std::string deepspeed = scratch.script("deepspeed", "#!/usr/bin/python3\nimport sys\n");
  const std::string site = fixture("torch-cu128");
  const auto python = read_with(std::nullopt, {"deepspeed", "train.py", "--deepspeed", "ds_z2.json"},
                                {"PATH=" + scratch.root.string() + ":/usr/bin:/bin", "PYTHONPATH=" + site,
                                 "LD_LIBRARY_PATH=" + fixture("cuda-11")},
                                std::chrono::seconds(10));
  REQUIRE_MESSAGE(python.read, (python.read ? "" : python.read.missing().detail));
  CHECK(python.interpreter == kDebianPython);
  CHECK(python.found_by == "the shebang of " + deepspeed);
  REQUIRE_FALSE(python.sys_path.empty());
  CHECK(python.sys_path.front() == site);

  const auto* torch = package(python, "torch");
  REQUIRE(torch);
  CHECK(torch->version == "2.7.0+cu128");
  CHECK(torch->location == site);
  CHECK(torch->build.at("cuda") == "12.8");
  CHECK(torch->build.at("local_tag") == "cu128");
  if (debian_torch_installed()) {
    CHECK(mentions(python.problems, std::string("torch 1.13.0a0 in ") + kDebianSite + " is shadowed by torch 2.7.0+cu128 in " + site));
  }
  REQUIRE(package(python, "nvidia-cuda-runtime-cu12"));
  CHECK(package(python, "nvidia-cuda-runtime-cu12")->version == "12.8.57");
  CHECK(package(python, "nvidia-cudnn-cu12")->version == "9.7.1.26");
  REQUIRE(package(python, "deepspeed"));
  CHECK(package(python, "deepspeed")->build.at("torch_version") == "2.1");
  CHECK(package(python, "deepspeed")->build.at("cuda_version") == "12.1");
  CHECK(package(python, "bitsandbytes")->build.at("cuda_libraries") == "118");

  const auto flash = std::find_if(python.libraries.begin(), python.libraries.end(),
                                  [](const auto& library) { return library.package == "flash_attn"; });
  REQUIRE(flash != python.libraries.end());
  CHECK(flash->path == site + "/flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so");
  CHECK(flash->needed.front() == "libcudart.so.11.0");

  REQUIRE(python.ld_library_path.size() == 1);
  CHECK(python.ld_library_path.front().directory == fixture("cuda-11"));
  CHECK(python.ld_library_path.front().provides == std::vector<std::string>{"libcudart.so.11.0"});
}

TEST_CASE("python environment: an interpreter that hangs is given up at the deadline") {
  Scratch scratch;
  const std::string hangs = scratch.script("python3", "#!/bin/sh\nsleep 60\n");
  const auto started = std::chrono::steady_clock::now();
  const auto python = read_with(hangs, {"python3", "train.py"},
                                {"PATH=/usr/bin:/bin", "LD_LIBRARY_PATH=" + fixture("cuda-11")},
                                std::chrono::milliseconds(500));
  const auto took = std::chrono::steady_clock::now() - started;
  CHECK(took < std::chrono::seconds(10));
  REQUIRE_FALSE(python.read);
  CHECK(python.read.missing().reason == MissingReason::timed_out);
  CHECK(python.interpreter == hangs);
  CHECK_FALSE(python.command.empty());
  CHECK(python.packages.empty());
  CHECK(python.ld_library_path.size() == 1);  // still read
}

TEST_CASE("python environment: interpreters that fail, crash or print garbage say so") {
  Scratch scratch;
  const std::vector<std::string> environment = {"PATH=/usr/bin:/bin"};
  const auto fails = read_with(scratch.script("fails", "#!/bin/sh\necho 'ImportError: no module named site' >&2\nexit 3\n"),
                               {}, environment, std::chrono::seconds(10));
  REQUIRE_FALSE(fails.read);
  CHECK(fails.read.missing().reason == MissingReason::failed);
  CHECK(fails.read.missing().detail.find("ImportError: no module named site") != std::string::npos);

  const auto crashes = read_with(scratch.script("crashes", "#!/bin/sh\nkill -SEGV $$\n"), {}, environment,
                                 std::chrono::seconds(10));
  REQUIRE_FALSE(crashes.read);
  CHECK(crashes.read.missing().reason == MissingReason::failed);
  CHECK(crashes.read.missing().detail.find("SIGSEGV") != std::string::npos);

  const auto garbage = read_with(scratch.script("garbage", "#!/bin/sh\nhead -c 100000 /dev/urandom\n"), {},
                                 environment, std::chrono::seconds(10));
  REQUIRE_FALSE(garbage.read);
  CHECK(garbage.read.missing().reason == MissingReason::unparseable);
}

TEST_CASE("python environment: no Python anywhere is missing, and the rest is still read") {
  Scratch scratch;
  const auto python = read_with(std::nullopt, {"bash", "-c", "python3 train.py"},
                                {"PATH=" + scratch.root.string(), "LD_LIBRARY_PATH=" + fixture("cuda-12")},
                                std::chrono::seconds(10));
  REQUIRE_FALSE(python.read);
  CHECK(python.read.missing().reason == MissingReason::not_present);
  CHECK(python.interpreter.empty());
  CHECK(mentions(python.problems, "runs a shell (bash)"));
  REQUIRE(python.ld_library_path.size() == 1);
  CHECK(python.ld_library_path.front().provides == std::vector<std::string>{"libcudart.so.12"});
}

TEST_CASE("python environment: ftdiag's own environment by default") {
  if (!fs::exists(kDebianPython)) FTDIAG_SKIP("needs /usr/bin/python3");
  PythonEnvironmentRequest request;
  request.interpreter = kDebianPython;
  const auto python = read_python_environment(request);
  REQUIRE_MESSAGE(python.read, (python.read ? "" : python.read.missing().detail));
  CHECK_FALSE(python.sys_path.empty());
}
