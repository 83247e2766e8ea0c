// base/tree_reads.h: files beneath a folder, never through a link out of it,
// and only what the folder's owner could read.
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "base/tree_reads.h"

namespace ftdiag {
namespace {

namespace fs = std::filesystem;

struct ReadsFolder {
  fs::path root;
  ReadsFolder() {
    char name[] = "/tmp/ftdiag-tree-reads-XXXXXX";
    root = ::mkdtemp(name);
    fs::create_directory(root / "tree");
    std::ofstream(root / "outside") << "outside";
    std::ofstream(root / "tree" / "inside.log") << "inside";
    fs::create_symlink("inside.log", root / "tree" / "link-in.log");
    fs::create_symlink(root / "outside", root / "tree" / "link-out.log");
    fs::create_symlink("../outside", root / "tree" / "dotdot.log");
  }
  ~ReadsFolder() { fs::remove_all(root); }
};

}  // namespace

TEST_CASE("tree reads: a link inside the folder is followed, a link out of it is refused with the reason") {
  ReadsFolder folder;
  auto tree = TreeReads::open(folder.root / "tree");
  REQUIRE(tree);
  CHECK(tree->read(folder.root / "tree" / "inside.log", 100).value_or("") == "inside");
  CHECK(tree->read(folder.root / "tree" / "link-in.log", 100).value_or("") == "inside");
  for (const char* name : {"link-out.log", "dotdot.log"}) {
    auto refused = tree->read(folder.root / "tree" / name, 100);
    REQUIRE_FALSE(refused);
    CHECK(refused.missing().reason == MissingReason::permission_denied);
    CHECK(refused.missing().detail.find("the link leaves the tree") != std::string::npos);
  }
  CHECK_FALSE(tree->read(folder.root / "outside", 100));  // not below the folder at all
}

TEST_CASE("tree reads: in another user's folder, a root-only file is refused: its owner cannot read it") {
  if (::geteuid() != 0) return;  // only root can make a folder another user's
  ReadsFolder folder;
  const fs::path tree_path = folder.root / "tree";
  REQUIRE(::chown(tree_path.c_str(), 65534, 65534) == 0);
  REQUIRE(::chown((tree_path / "inside.log").c_str(), 65534, 65534) == 0);
  std::ofstream(tree_path / "root-only.log") << "secret";
  fs::permissions(tree_path / "root-only.log", fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
  auto tree = TreeReads::open(tree_path);
  REQUIRE(tree);
  CHECK_FALSE(tree->owned_by_root());
  CHECK(tree->read(tree_path / "inside.log", 100).value_or("") == "inside");
  auto refused = tree->read(tree_path / "root-only.log", 100);
  REQUIRE_FALSE(refused);
  CHECK(refused.missing().detail.find("cannot read it") != std::string::npos);
}

}  // namespace ftdiag
