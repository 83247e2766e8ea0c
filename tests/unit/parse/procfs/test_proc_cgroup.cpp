#include <doctest/doctest.h>

#include <algorithm>

#include "parse/procfs/mountinfo.h"
#include "parse/procfs/proc_cgroup.h"
#include "unit/parse/parse_fixtures.h"

using namespace ftdiag;
using namespace ftdiag::parse;
using ftdiag::parse::testing::fixture_text;
using Strings = std::vector<std::string>;

TEST_CASE("parse_proc_cgroup: a hybrid v1 host") {
  auto groups = parse_proc_cgroup(fixture_text("cgroup-v1/proc/4242/cgroup"));
  REQUIRE(groups);
  REQUIRE(groups->size() == 10);
  CHECK(groups->at(0).hierarchy_id == 9);
  CHECK(groups->at(0).controllers == Strings{"name=systemd"});
  CHECK(groups->at(5).controllers == Strings{"memory"});
  CHECK(groups->at(5).path == "/jobs/a");
  CHECK(groups->back().hierarchy_id == 0);
  CHECK(groups->back().controllers.empty());
  CHECK(groups->back().path == "/");
}

TEST_CASE("parse_proc_cgroup: co-mounted controllers, colons in paths, deleted cgroups") {
  auto groups = parse_proc_cgroup(
      "3:cpu,cpuacct:/slurm/uid_1000/job_123\n"
      "0::/a:b/c\n"
      "0::/system.slice/gone.scope (deleted)\n");
  REQUIRE(groups);
  REQUIRE(groups->size() == 3);
  CHECK(groups->at(0).controllers == Strings{"cpu", "cpuacct"});
  CHECK(groups->at(1).path == "/a:b/c");
  CHECK_FALSE(groups->at(1).deleted);
  CHECK(groups->at(2).path == "/system.slice/gone.scope");
  CHECK(groups->at(2).deleted);
}

TEST_CASE("parse_proc_cgroup: malformed lines are skipped, none valid is unparseable") {
  auto mixed = parse_proc_cgroup("garbage\nx:memory:/a\n4:memory\n-1::/\n0::/ok\n");
  REQUIRE(mixed);
  REQUIRE(mixed->size() == 1);
  CHECK(mixed->at(0).path == "/ok");
  for (std::string_view text : {"", "\n", "0::", "0::relative", "::/", "99999999999::/"}) {
    CAPTURE(text);
    auto groups = parse_proc_cgroup(text);
    REQUIRE_FALSE(groups);
    CHECK(groups.missing().reason == MissingReason::unparseable);
  }
}

TEST_CASE("parse_mountinfo: the build machine's hybrid cgroup layout") {
  auto mounts = parse_mountinfo(fixture_text("cgroup-v1/proc/self/mountinfo"));
  REQUIRE(mounts);
  auto memory = std::find_if(mounts->begin(), mounts->end(),
                             [](const MountEntry& m) { return m.mount_point == "/sys/fs/cgroup/memory"; });
  REQUIRE(memory != mounts->end());
  CHECK(memory->fs_type == "cgroup");
  CHECK(memory->root == "/");
  CHECK(memory->source == "cgroup");
  CHECK(memory->mount_options == "rw,relatime");
  CHECK(memory->super_options == "rw,memory");
}

TEST_CASE("parse_mountinfo: optional fields, octal escapes and a container's cgroup root") {
  auto host = parse_mountinfo(fixture_text("cgroup-v2/proc/self/mountinfo"));
  REQUIRE(host);
  auto nfs = std::find_if(host->begin(), host->end(),
                          [](const MountEntry& m) { return m.fs_type == "nfs4"; });
  REQUIRE(nfs != host->end());
  CHECK(nfs->mount_point == "/mnt/shared data");
  CHECK(nfs->source == "10.0.0.5:/export/data");

  auto container = parse_mountinfo(fixture_text("cgroup-v2-container/proc/self/mountinfo"));
  REQUIRE(container);
  auto cgroup = std::find_if(container->begin(), container->end(),
                             [](const MountEntry& m) { return m.fs_type == "cgroup2"; });
  REQUIRE(cgroup != container->end());
  CHECK(cgroup->mount_point == "/sys/fs/cgroup");
  CHECK(cgroup->root.starts_with("/system.slice/docker-"));
  CHECK(cgroup->mount_options == "ro,nosuid,nodev,noexec,relatime");
}

TEST_CASE("parse_mountinfo: escapes, missing super options and garbage") {
  auto mounts = parse_mountinfo(
      "40 1 0:40 /a\\134b /mnt/x\\011y rw shared:1 master:2 - tmpfs none\n"
      "bad line\n"
      "41 1 0:41 / /mnt rw - ext4\n");
  REQUIRE(mounts);
  REQUIRE(mounts->size() == 1);
  CHECK(mounts->at(0).root == "/a\\b");
  CHECK(mounts->at(0).mount_point == "/mnt/x\ty");
  CHECK(mounts->at(0).super_options.empty());
  for (std::string_view text : {"", "1 2 3 4 5 6 - ", "a b 0:1 / / rw - t s o", "1 2 3 4 5 6 7 8 9"}) {
    CAPTURE(text);
    auto none = parse_mountinfo(text);
    REQUIRE_FALSE(none);
    CHECK(none.missing().reason == MissingReason::unparseable);
  }
}
