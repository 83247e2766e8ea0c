// pyenv's shims read as pyenv reads its files (collect/python_env/pyenv_shim.h):
// PYENV_VERSION, then the nearest .python-version, then $PYENV_ROOT/version,
// then the system's interpreter further along PATH; anything else is left to
// the shim itself.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include "collect/python_env/pyenv_shim.h"
#include "scratch_tree.h"

namespace fs = std::filesystem;
using ftdiag::collect::resolve_pyenv_shim;
using ftdiag::collect::testing::ScratchTree;

namespace {

// A pyenv root as pyenv installs it: the shim's script names its root.
struct PyenvRoot {
  ScratchTree tree;
  fs::path root = tree.path("pyenv");
  fs::path shim;

  PyenvRoot() {
    shim = tree.write("pyenv/shims/python3", "#!/usr/bin/env bash\nset -e\nprogram=\"${0##*/}\"\nexport PYENV_ROOT=\"" +
                                                root.string() + "\"\nexec \"" + root.string() +
                                                "/libexec/pyenv\" exec \"$program\" \"$@\"\n");
    fs::create_directories(root / "libexec");
    for (const char* version : {"3.11.7", "3.10.13"}) interpreter(version);
  }
  fs::path interpreter(const std::string& version) const {
    const auto file = tree.write("pyenv/versions/" + version + "/bin/python3", "#!/bin/sh\n");
    fs::permissions(file, fs::perms::owner_all);
    return file;
  }
  std::vector<std::string> environment(std::vector<std::string> more = {}) const {
    more.push_back("PATH=" + (root / "shims").string() + ":" + tree.path("usr/bin").string());
    return more;
  }
};

}  // namespace

TEST_CASE("pyenv shim: PYENV_VERSION first, the first of its versions installed with the command") {
  PyenvRoot pyenv;
  pyenv.tree.write("pyenv/version", "3.10.13\n");
  const auto found = resolve_pyenv_shim(pyenv.shim.string(), pyenv.environment({"PYENV_VERSION=3.11.7:3.10.13"}), pyenv.tree.root());
  REQUIRE(found);
  CHECK(found->interpreter == (pyenv.root / "versions/3.11.7/bin/python3").string());
  CHECK(found->version == "3.11.7");
  CHECK(found->chosen_by == "PYENV_VERSION");
}

TEST_CASE("pyenv shim: the nearest .python-version up from the directory, before the global version file") {
  PyenvRoot pyenv;
  pyenv.tree.write("pyenv/version", "3.11.7\n");
  pyenv.tree.write("project/.python-version", "# pinned\n\n3.10.13 trailing words\n");
  fs::create_directories(pyenv.tree.path("project/src/deep"));
  const auto found = resolve_pyenv_shim(pyenv.shim.string(), pyenv.environment(), pyenv.tree.path("project/src/deep"));
  REQUIRE(found);
  CHECK(found->version == "3.10.13");
  CHECK(found->chosen_by == pyenv.tree.path("project/.python-version").string());

  const auto global = resolve_pyenv_shim(pyenv.shim.string(), pyenv.environment(), pyenv.tree.root());
  REQUIRE(global);
  CHECK(global->version == "3.11.7");
  CHECK(global->chosen_by == (pyenv.root / "version").string());
}

TEST_CASE("pyenv shim: system is the command further along PATH, the shims left out") {
  PyenvRoot pyenv;
  const auto system = pyenv.tree.write("usr/bin/python3", "#!/bin/sh\n");
  fs::permissions(system, fs::perms::owner_all);
  const auto found = resolve_pyenv_shim(pyenv.shim.string(), pyenv.environment(), pyenv.tree.root());
  REQUIRE(found);  // no version file: "system"
  CHECK(found->interpreter == system.string());
  CHECK(found->chosen_by == "the default");
}

TEST_CASE("pyenv shim: what pyenv would refuse or a script that is no shim is left to the shim itself") {
  PyenvRoot pyenv;
  CHECK_FALSE(resolve_pyenv_shim(pyenv.shim.string(), pyenv.environment({"PYENV_VERSION=3.9.1"}), pyenv.tree.root()));
  // "system" with no python3 beyond the shims.
  CHECK_FALSE(resolve_pyenv_shim(pyenv.shim.string(), pyenv.environment({"PYENV_VERSION=system"}), pyenv.tree.root()));
  const auto other = pyenv.tree.write("tools/shims/python3", "#!/bin/sh\nexec /usr/bin/python3 \"$@\"\n");
  CHECK_FALSE(resolve_pyenv_shim(other.string(), pyenv.environment(), pyenv.tree.root()));
  CHECK_FALSE(resolve_pyenv_shim((pyenv.root / "versions/3.11.7/bin/python3").string(), pyenv.environment(), pyenv.tree.root()));
}

TEST_CASE("pyenv shim: a FIFO planted as .python-version is passed over, never waited on") {
  PyenvRoot pyenv;
  pyenv.tree.write("pyenv/version", "3.10.13\n");
  fs::create_directories(pyenv.tree.path("project"));
  REQUIRE(::mkfifo(pyenv.tree.path("project/.python-version").c_str(), 0600) == 0);
  const auto found = resolve_pyenv_shim(pyenv.shim.string(), pyenv.environment(), pyenv.tree.path("project"));
  REQUIRE(found);
  CHECK(found->version == "3.10.13");
}
