#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "parse/probes/crash_record.h"
#include "parse/probes/proc_maps.h"

using namespace ftdiag::parse;

namespace {

std::string fixture(const char* name) {
  std::ifstream in(std::string(FTDIAG_FIXTURES_DIR) + "/crash/" + name, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("crash record: every field of a whole record") {
  const auto record = parse_crash_record(fixture("handmade-segv.txt"));
  REQUIRE(record);
  CHECK(record->version == 1);
  CHECK(record->signal == 11);
  CHECK(record->code == 1);
  CHECK(record->address == 0u);
  CHECK(record->pid == 4242);
  CHECK(record->tid == 4245);
  CHECK(record->thread == "pt_main_thread");
  CHECK(*record->time == doctest::Approx(1796139991.643115));
  REQUIRE(record->stack);
  CHECK(record->stack->first == 0x7ffd9a3a2000u);
  CHECK(record->register_value("rip") == 0x55d0c0de1234u);
  CHECK_FALSE(record->register_value("pc"));
  REQUIRE(record->environment.size() == 2);
  CHECK(record->environment[0] == std::pair<std::string, std::string>{"LD_LIBRARY_PATH", "/opt/conda/lib:/usr/local/cuda/lib64"});
  CHECK(record->environment[1].first == "LD_PRELOAD");
  CHECK(record->frames == std::vector<std::uint64_t>{0x55d0c0de1234, 0x55d0c0de1301, 0x7f1c2a029d90});
  CHECK(record->unwind == "complete");
  REQUIRE(record->maps.size() == 3);
  CHECK(record->maps[1].path == "/usr/lib/x86_64-linux-gnu/libc.so.6");
  CHECK(record->maps_whole);
  CHECK(record->whole);
  CHECK(record->problems.empty());
}

TEST_CASE("crash record: cut anywhere, it keeps what came before and says what is missing") {
  const auto whole = fixture("handmade-segv.txt");
  // Up to the last "end" line's newline: "end" alone is the record's last word, whole.
  for (std::size_t cut = 20; cut + 1 < whole.size(); cut += 7) {
    CAPTURE(cut);
    const auto record = parse_crash_record(std::string_view(whole).substr(0, cut));
    REQUIRE(record);
    CHECK_FALSE(record->whole);
    CHECK_FALSE(record->problems.empty());
    CHECK(record->frames.size() <= 3);
  }
  const auto mid_maps = parse_crash_record(std::string_view(whole).substr(0, whole.find("[stack]")));
  REQUIRE(mid_maps);
  CHECK(mid_maps->maps.size() == 2);
  CHECK_FALSE(mid_maps->maps_whole);
}

TEST_CASE("crash record: other files and other versions are refused with the reason") {
  std::string why;
  CHECK_FALSE(parse_crash_record("Fatal Python error: Segmentation fault\n", &why));
  CHECK(why.find("not a crash record") != std::string::npos);
  CHECK_FALSE(parse_crash_record("ftdiag-crash 2\nsignal 11\n", &why));
  CHECK(why.find("version") != std::string::npos);
  CHECK_FALSE(parse_crash_record("", &why));
}

TEST_CASE("crash record: damaged lines are named, the rest is read") {
  const auto record = parse_crash_record("ftdiag-crash 1\nsignal eleven\naddress 0x0\nframe 0xzz\nframe 0x10\n\x01\x02garbage\nend\n");
  REQUIRE(record);
  CHECK_FALSE(record->signal);
  CHECK(record->address == 0u);
  CHECK(record->frames == std::vector<std::uint64_t>{0x10});
  CHECK(record->problems.size() == 3);
  CHECK(record->problems[2].find("??garbage") != std::string::npos);
}

TEST_CASE("maps: a line in each shape the kernel prints") {
  auto file = parse_maps_line("55d0c0de0000-55d0c0de2000 r-xp 00001000 fd:01 1234567    /opt/my lib/libx.so (deleted)\n");
  REQUIRE(file);
  CHECK(file->start == 0x55d0c0de0000u);
  CHECK(file->end == 0x55d0c0de2000u);
  CHECK(file->executable());
  CHECK(file->offset == 0x1000u);
  CHECK(file->inode == 1234567u);
  CHECK(file->path == "/opt/my lib/libx.so");
  CHECK(file->deleted);
  auto anonymous = parse_maps_line("7f1c29e00000-7f1c29e21000 rw-p 00000000 00:00 0 ");
  REQUIRE(anonymous);
  CHECK(anonymous->path.empty());
  CHECK_FALSE(parse_maps_line("7f00-7e00 r-xp 0 08:01 1 /x"));  // end before start
  CHECK_FALSE(parse_maps_line("hello world"));
}

TEST_CASE("maps: the mapping of an address, sorted or not") {
  const auto maps = parse_maps("1000-2000 r-xp 0 0:0 0 /a\n3000-4000 r-xp 0 0:0 0 /b\n");
  CHECK(mapping_of(maps, 0x1000)->path == "/a");
  CHECK(mapping_of(maps, 0x3fff)->path == "/b");
  CHECK_FALSE(mapping_of(maps, 0x2000));
  CHECK_FALSE(mapping_of(maps, 0x10));
  const auto unsorted = parse_maps("3000-4000 r-xp 0 0:0 0 /b\n1000-2000 r-xp 0 0:0 0 /a\n");
  CHECK(mapping_of(unsorted, 0x1800)->path == "/a");
}
