// Files created under an open folder: no link followed, O_EXCL for new
// names, private modes whatever the umask, atomic replacement.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "base/files_at.h"

using namespace ftdiag;
namespace fs = std::filesystem;

namespace {

struct Folder {
  fs::path path;
  UniqueFd fd;
  Folder() {
    char name[] = "/tmp/ftdiag-files-at-XXXXXX";
    REQUIRE(::mkdtemp(name) != nullptr);
    path = name;
    fd = UniqueFd(::open(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  }
  ~Folder() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// The umask a user could have, for the scope of a test.
struct Umask {
  mode_t saved;
  explicit Umask(mode_t mask) : saved(::umask(mask)) {}
  ~Umask() { ::umask(saved); }
};

std::string text_of(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

mode_t mode_of(const fs::path& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

fs::path victim(const Folder& folder) {
  const auto file = folder.path / "victim";
  std::ofstream(file) << "untouched";
  return file;
}

}  // namespace

TEST_CASE("files_at: a new file is 0600 under umask 000, and a link planted at its name is refused, its target untouched") {
  Folder folder;
  Umask open_umask(0);
  auto created = create_file_at(folder.fd.get(), "journal.jsonl", O_APPEND);
  REQUIRE(created);
  CHECK(mode_of(folder.path / "journal.jsonl") == 0600);

  const auto target = victim(folder);
  fs::create_symlink(target, folder.path / "planted");
  auto refused = create_file_at(folder.fd.get(), "planted");
  CHECK_FALSE(refused);
  CHECK(text_of(target) == "untouched");
}

TEST_CASE("files_at: replacing a file replaces a link at its name instead of writing through it, and leaves no temporary") {
  Folder folder;
  Umask open_umask(0);
  const auto target = victim(folder);
  fs::create_symlink(target, folder.path / "environment.json");
  fs::create_symlink(target, folder.path / "environment.json.tmp");  // the name a naive writer would use
  auto replaced = replace_file_at(folder.fd.get(), "environment.json", "{}\n");
  REQUIRE_MESSAGE(replaced, replaced.missing().detail);
  CHECK(text_of(target) == "untouched");
  CHECK_FALSE(fs::is_symlink(folder.path / "environment.json"));
  CHECK(text_of(folder.path / "environment.json") == "{}\n");
  CHECK(mode_of(folder.path / "environment.json") == 0600);
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(folder.path)) ++entries;
  CHECK(entries == 3);  // victim, the two names, no temporary
}

TEST_CASE("files_at: replace_file by path writes into the named folder, and a name that is a folder is refused") {
  Folder folder;
  auto written = replace_file(folder.path / "saved.json", "x");
  REQUIRE(written);
  CHECK(text_of(folder.path / "saved.json") == "x");
  CHECK_FALSE(replace_file(folder.path / "..", "x"));
  CHECK_FALSE(replace_file(folder.path / "missing" / "saved.json", "x"));
}

TEST_CASE("files_at: a fresh folder is 0700 under umask 000 and takes the next free suffix") {
  Folder folder;
  Umask open_umask(0);
  std::string chosen;
  REQUIRE(make_fresh_directory_at(folder.fd.get(), "node-rank0", chosen));
  CHECK(chosen == "node-rank0");
  CHECK(mode_of(folder.path / chosen) == 0700);
  REQUIRE(make_fresh_directory_at(folder.fd.get(), "node-rank0", chosen));
  CHECK(chosen == "node-rank0-2");
  // A link in the way is a taken name, never followed.
  fs::create_directory_symlink("/", folder.path / "node-rank0-3");
  REQUIRE(make_fresh_directory_at(folder.fd.get(), "node-rank0", chosen));
  CHECK(chosen == "node-rank0-4");
}

TEST_CASE("files_at: opening a folder that is a link is refused and says so, and make_directories makes 0700 parents") {
  Folder folder;
  Umask open_umask(0);
  fs::create_directory_symlink("/etc", folder.path / "jobs");
  auto refused = open_directory_at(folder.fd.get(), "jobs");
  REQUIRE_FALSE(refused);
  CHECK(refused.missing().detail.find("symlink") != std::string::npos);
  auto made = make_directories(folder.path / "a" / "b");
  REQUIRE(made);
  CHECK(mode_of(folder.path / "a") == 0700);
  CHECK(mode_of(folder.path / "a" / "b") == 0700);
  CHECK_FALSE(make_directories(folder.path / "jobs"));
}
