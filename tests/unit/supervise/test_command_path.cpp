#include "supervise/command_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

#include <doctest/doctest.h>

using ftdiag::supervise::resolve_command;
using ftdiag::supervise::search_path_of;

namespace fs = std::filesystem;

namespace {

struct TwoDirectories {
  fs::path root;
  TwoDirectories() {
    char pattern[] = "/tmp/ftdiag-path-XXXXXX";
    REQUIRE(::mkdtemp(pattern));
    root = pattern;
    fs::create_directories(root / "a");
    fs::create_directories(root / "b");
    fs::create_directories(root / "a" / "subdir-named-tool");
  }
  ~TwoDirectories() { fs::remove_all(root); }
  void file(const fs::path& path, fs::perms perms) {
    std::ofstream(path) << "#!/bin/sh\n";
    fs::permissions(path, perms);
  }
  std::string path_of(std::initializer_list<const char*> dirs) const {
    std::string joined;
    for (const char* dir : dirs) joined += (joined.empty() ? "" : ":") + (root / dir).string();
    return joined;
  }
};

}  // namespace

TEST_CASE("command path: the first executable regular file on PATH wins, others are skipped as execvp does") {
  TwoDirectories dirs;
  dirs.file(dirs.root / "a" / "tool", fs::perms::owner_read);  // not executable
  dirs.file(dirs.root / "b" / "tool", fs::perms::owner_all);
  auto found = resolve_command("tool", dirs.path_of({"a", "b"}));
  REQUIRE(std::holds_alternative<std::string>(found));
  CHECK(std::get<std::string>(found) == (dirs.root / "b" / "tool").string());
  // Only a file that cannot be executed: EACCES, as execvp reports.
  CHECK(std::get<int>(resolve_command("tool", dirs.path_of({"a"}))) == EACCES);
  // A directory of that name is no candidate.
  CHECK(std::get<int>(resolve_command("subdir-named-tool", dirs.path_of({"a"}))) == ENOENT);
  CHECK(std::get<int>(resolve_command("missing", dirs.path_of({"a", "b"}))) == ENOENT);
  CHECK(std::get<int>(resolve_command("", dirs.path_of({"a", "b"}))) == ENOENT);
}

TEST_CASE("command path: a name with a slash is taken as is, an empty PATH entry is the current directory") {
  CHECK(std::get<std::string>(resolve_command("./x", "/usr/bin")) == "./x");
  CHECK(std::get<std::string>(resolve_command("/no/such/file", "/usr/bin")) == "/no/such/file");
  TwoDirectories dirs;
  dirs.file(dirs.root / "b" / "here", fs::perms::owner_all);
  const auto cwd = fs::current_path();
  fs::current_path(dirs.root / "b");
  auto found = resolve_command("here", ":/nonexistent");
  fs::current_path(cwd);
  REQUIRE(std::holds_alternative<std::string>(found));
  CHECK(std::get<std::string>(found) == "./here");
}

TEST_CASE("command path: PATH comes from the given environment, else the system default") {
  std::vector<std::string> with_path = {"HOME=/root", "PATH=/opt/bin:/bin"};
  CHECK(search_path_of(with_path) == "/opt/bin:/bin");
  std::vector<std::string> without = {"HOME=/root", "XPATH=/x"};
  CHECK(search_path_of(without) == ftdiag::supervise::kDefaultSearchPath);
}
