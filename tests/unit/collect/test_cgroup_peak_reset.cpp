// A memory cgroup reused from an earlier job (a Slurm allocation, a
// long-lived container) must not lend that job's peak to this one: the peak
// is reset when the cgroup is the watched tree's alone, and each reading says
// whether it was.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "base/read_file.h"
#include "collect/host/cgroup_owner.h"
#include "collect/host/cgroup_v1.h"
#include "collect/host/cgroup_v2.h"
#include "collect_fixtures.h"

using namespace ftdiag;
using namespace ftdiag::collect;
using testing::fixture_path;
using testing::fixture_roots;

namespace {

namespace fs = std::filesystem;

// A writable copy of a fixture cgroup directory: resets write to it.
struct CgroupCopy {
  fs::path dir;
  explicit CgroupCopy(std::string_view fixture_dir) {
    dir = fs::temp_directory_path() / ("ftdiag-peak-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::copy(fixture_path(fixture_dir), dir, fs::copy_options::recursive);
  }
  ~CgroupCopy() { fs::remove_all(dir); }
  std::string text(const char* name) const { return read_small_file(dir / name).value_or("(unreadable)"); }
};

constexpr const char* kV1Job = "cgroup-v1/sys/fs/cgroup/memory/jobs/a";

}  // namespace

TEST_CASE("cgroup_holds_only_tree_of: a cgroup of the tree's processes only is the tree's") {
  // The fixture's only process, 4242, is a child of 4240.
  CHECK(cgroup_holds_only_tree_of(fixture_roots("cgroup-v1"), fixture_path(kV1Job), 4240) == Fact<bool>(true));
  CHECK(cgroup_holds_only_tree_of(fixture_roots("cgroup-v1"), fixture_path(kV1Job), 4242) == Fact<bool>(true));
  auto foreign = cgroup_holds_only_tree_of(fixture_roots("cgroup-v1"), fixture_path(kV1Job), 77);
  REQUIRE_FALSE(foreign);
  CHECK(foreign.missing().detail == "pid 4242 (python3) shares the cgroup");
}

TEST_CASE("cgroup_holds_only_tree_of: real processes, in a cgroup below too") {
  CgroupCopy copy(kV1Job);
  const int self = ::getpid();
  const SystemRoots real{"/"};
  std::ofstream(copy.dir / "cgroup.procs") << self << "\n";
  fs::create_directories(copy.dir / "below");
  std::ofstream(copy.dir / "below" / "cgroup.procs") << "";
  CHECK(cgroup_holds_only_tree_of(real, copy.dir, self) == Fact<bool>(true));
  // pid 1 is nobody's descendant: a process of another job, below ours.
  std::ofstream(copy.dir / "below" / "cgroup.procs") << "1\n";
  auto shared = cgroup_holds_only_tree_of(real, copy.dir, self);
  REQUIRE_FALSE(shared);
  CHECK(shared.missing().detail.starts_with("pid 1 ("));
  // A process that ended since the list was read holds nothing.
  std::ofstream(copy.dir / "below" / "cgroup.procs") << "4194304\n";
  CHECK(cgroup_holds_only_tree_of(real, copy.dir, self) == Fact<bool>(true));
}

TEST_CASE("CgroupV1Memory::reset_peak: writes max_usage_in_bytes only for the sole user") {
  CgroupCopy copy(kV1Job);
  CgroupV1Memory cgroup(copy.dir, "/jobs/a");
  CHECK_FALSE(cgroup.read().peak_reset);  // not reset yet: the peak may be anyone's

  cgroup.reset_peak(Missing{MissingReason::not_present, "pid 812 (bash) shares the cgroup"});
  CHECK(copy.text("memory.max_usage_in_bytes") == "104857600\n");  // untouched
  auto refused = cgroup.read().peak_reset;
  REQUIRE_FALSE(refused);
  CHECK(refused.missing().detail.find("pid 812 (bash) shares the cgroup") != std::string::npos);
  CHECK(refused.missing().detail.find("highest sampled usage") != std::string::npos);

  cgroup.reset_peak(true);
  CHECK(copy.text("memory.max_usage_in_bytes").starts_with("0"));  // what the kernel is asked
  CHECK(cgroup.read().peak_reset == Fact<bool>(true));
}

TEST_CASE("CgroupV1Memory::reset_peak: a failed write says why") {
  CgroupCopy copy(kV1Job);
  fs::remove(copy.dir / "memory.max_usage_in_bytes");
  CgroupV1Memory cgroup(copy.dir, "/jobs/a");
  cgroup.reset_peak(true);
  auto reset = cgroup.read().peak_reset;
  REQUIRE_FALSE(reset);
  CHECK(reset.missing().reason == MissingReason::not_present);
}

TEST_CASE("CgroupV2Memory::reset_peak: without memory.peak the peak stays unreset, with the reason") {
  CgroupCopy copy(kV1Job);  // any directory without memory.peak
  CgroupV2Memory cgroup(copy.dir, "/job");
  cgroup.reset_peak(true);
  auto r = cgroup.read();
  REQUIRE_FALSE(r.peak_reset);
  CHECK_FALSE(r.peak);
}

TEST_CASE("CgroupV2Memory::reset_peak: the peak is read through the file it was reset on") {
  CgroupCopy copy(kV1Job);
  std::ofstream(copy.dir / "memory.peak") << "9\n";
  CgroupV2Memory cgroup(copy.dir, "/job");
  CHECK(cgroup.read().peak == Fact<std::uint64_t>(9ULL));
  cgroup.reset_peak(true);
  auto r = cgroup.read();
  CHECK(r.peak_reset == Fact<bool>(true));
  // A regular file keeps what was written over it; the kernel's file answers
  // the peak since the write, to reads through the same open file only.
  CHECK(r.peak == Fact<std::uint64_t>(0ULL));
  fs::remove(copy.dir / "memory.peak");  // the path is gone: the open file still answers
  CHECK(cgroup.read().peak == Fact<std::uint64_t>(0ULL));
}
