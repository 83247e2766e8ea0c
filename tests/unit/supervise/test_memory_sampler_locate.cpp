#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "supervise/memory_sampler.h"
#include "unit/collect/collect_fixtures.h"

using namespace ftdiag;
namespace fs = std::filesystem;

namespace {

// The cgroup-v1 fixture (pid 4242 in memory:/jobs/a) with a second process,
// 4243, that reads as the root cgroup: what an exiting task shows on v1
// between cgroup_exit and becoming a zombie.
struct ExitingJobTree {
  fs::path root;
  explicit ExitingJobTree(const std::string& supervisor_cgroup) {
    root = fs::temp_directory_path() / ("ftdiag-sampler-" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::copy(collect::testing::fixture_path("cgroup-v1"), root, fs::copy_options::recursive);
    fs::create_directories(root / "proc/4243");
    fs::copy_file(root / "proc/4242/stat", root / "proc/4243/stat");
    std::ofstream(root / "proc/4243/cgroup") << "4:memory:/\n0::/\n";
    std::ofstream(root / "proc/4242/cgroup", std::ios::trunc) << "4:memory:" << supervisor_cgroup << "\n0::/\n";
  }
  ~ExitingJobTree() { fs::remove_all(root); }
};

}  // namespace

TEST_CASE("MemorySampler: a job read as the root cgroup while it exits is placed in the cgroup it was forked in") {
  ExitingJobTree tree("/jobs/a");
  supervise::MemorySampler sampler(collect::SystemRoots{tree.root}, 4242);
  CHECK(sampler.locate_cgroup_of(4243));
  REQUIRE(sampler.cgroup());
  CHECK(sampler.cgroup()->cgroup_path() == "/jobs/a");
}

TEST_CASE("MemorySampler: a job beside a supervisor in the root cgroup is in the root cgroup") {
  ExitingJobTree tree("/");
  supervise::MemorySampler sampler(collect::SystemRoots{tree.root}, 4242);
  CHECK(sampler.locate_cgroup_of(4243));
  REQUIRE(sampler.cgroup());
  CHECK(sampler.cgroup()->cgroup_path() == "/");
}
