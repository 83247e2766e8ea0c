// Reading the files of a folder another user prepared: the one way
// `ftdiag analyze` opens what lies under a PATH (docs/evidence.md, "Files
// and links"). ftdiag runs as root; the folder's owner may plant links to
// /etc/shadow or a key under names ftdiag reads (train.log, ds_config.json),
// or leave a root-only file there. So, for every file below the folder:
//
// - it is opened beneath the folder's open descriptor with openat2(2)
//   RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS: a link whose target stays in
//   the folder is followed, one that leaves it (an absolute target, "..",
//   a /proc magic link) is refused. On a kernel without openat2 (before
//   5.6) the path is walked component by component with O_NOFOLLOW and
//   every link is refused;
// - what was opened is read only when the folder's owner could read it: the
//   mode bits of the file for that user, and the search bit of every folder
//   on its way from the folder's root (base/owner_access.h). A folder root
//   owns is read as root reads it;
// - nothing waits on a FIFO (O_NONBLOCK) or takes a terminal (O_NOCTTY).
//
// The folder itself is opened as the user named it (links on the way to it
// are the user's choice), and a PATH that is a file is the user's choice
// too: it is read as named, as --kernel-log and --core files are.
//
// Refusals are Missing permission_denied values whose detail names the file
// and says why ("link leaves the tree", "its owner cannot read it"), for
// the collector to put in its evidence. Nothing throws beyond allocation.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/fact.h"
#include "base/owner_access.h"
#include "base/unique_fd.h"

namespace ftdiag {

class TreeReads {
 public:
  // What a folder holds, as listed (no entry is opened to list it).
  enum class Kind { file, folder, link_to_file, link, other };
  struct Entry {
    std::string name;
    Kind kind;
  };

  // The tree at PATH. Missing when PATH cannot be opened.
  static Fact<TreeReads> open(const std::filesystem::path& path);

  const std::filesystem::path& root() const { return root_; }
  bool is_folder() const { return root_fd_.valid(); }
  // Whether the tree is root's own (everything in it is read as root reads it).
  bool owned_by_root() const { return owner_.is_root(); }
  // Whether PATH names a place in the tree (lexically: the root or below).
  bool holds(const std::filesystem::path& path) const;

  // A regular file of the tree, open for reading.
  Fact<UniqueFd> open_file(const std::filesystem::path& file) const;
  // A folder of the tree (the root too), open for listing.
  Fact<UniqueFd> open_folder(const std::filesystem::path& folder) const;
  // Up to max_bytes of a file of the tree.
  Fact<std::string> read(const std::filesystem::path& file, std::size_t max_bytes) const;
  // The entries of a folder of the tree, in no particular order ("." and
  // ".." left out). A link to a regular file is told apart (its target's
  // type is looked at, nothing is opened) from a link to anything else.
  Fact<std::vector<Entry>> list(const std::filesystem::path& folder) const;

 private:
  TreeReads(std::filesystem::path root, UniqueFd root_fd, OwnerAccess owner, std::string root_location)
      : root_(std::move(root)), root_fd_(std::move(root_fd)), owner_(std::move(owner)), root_location_(std::move(root_location)) {}

  Fact<UniqueFd> open_beneath(const std::filesystem::path& path, bool folder) const;
  Fact<bool> owner_may_reach(int fd, const std::filesystem::path& path, const std::filesystem::path& relative) const;

  std::filesystem::path root_;
  UniqueFd root_fd_;  // invalid when the tree is one file
  OwnerAccess owner_;
  std::string root_location_;  // where the root really is (/proc/self/fd), to place what a link inside led to
};

}  // namespace ftdiag
