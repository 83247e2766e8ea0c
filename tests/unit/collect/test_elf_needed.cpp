// DT_NEEDED from real ELF files built for the fixtures, and from files that
// only pretend to be libraries: truncated at every interesting length, text,
// empty, special files.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "collect/python_env/elf_needed.h"
#include "python_fixtures.h"

using namespace ftdiag::collect;
using ftdiag::MissingReason;
using ftdiag::collect::testing::python_fixture;
using ftdiag::collect::testing::ScratchDirectory;

namespace {

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

const std::string kFlashAttn = "torch-cu128/flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so";

}  // namespace

TEST_CASE("elf needed: the fixture libraries name the runtimes they were linked against") {
  auto flash = read_elf_needed(python_fixture(kFlashAttn));
  REQUIRE(flash);
  CHECK(*flash == std::vector<std::string>{"libcudart.so.11.0", "libtorch_cuda.so", "libc.so.6"});

  auto torch_cuda = read_elf_needed(python_fixture("torch-cu128/torch/lib/libtorch_cuda.so"));
  REQUIRE(torch_cuda);
  CHECK(torch_cuda->front() == "libcudart.so.12");

  auto runtime = read_elf_needed(python_fixture("cuda-11/libcudart.so.11.0"));
  REQUIRE(runtime);
  CHECK(*runtime == std::vector<std::string>{"libc.so.6"});
}

TEST_CASE("elf needed: a truncated library is an error at every length, never a crash") {
  const std::string whole = file_bytes(python_fixture(kFlashAttn));
  REQUIRE(whole.size() > 4096);
  ScratchDirectory scratch;
  std::size_t failures = 0;
  for (std::size_t length : {std::size_t{0}, std::size_t{3}, std::size_t{16}, std::size_t{63}, std::size_t{64},
                             std::size_t{100}, std::size_t{500}, std::size_t{1000}, std::size_t{4000},
                             whole.size() / 2, whole.size() - 1}) {
    CAPTURE(length);
    const std::string path = scratch.write("cut-" + std::to_string(length) + ".so", whole.substr(0, length));
    auto needed = read_elf_needed(path);
    if (!needed) {
      ++failures;
      CHECK(needed.missing().reason == MissingReason::unparseable);
    }
  }
  CHECK(failures >= 6);  // at least every cut inside the headers
}

TEST_CASE("elf needed: text, empty and special files are not ELF") {
  ScratchDirectory scratch;
  auto text = read_elf_needed(python_fixture("broken/bitsandbytes/libbitsandbytes_cuda121.so"));
  REQUIRE_FALSE(text);
  CHECK(text.missing().reason == MissingReason::unparseable);
  CHECK(text.missing().detail.find("not an ELF file") != std::string::npos);

  CHECK(read_elf_needed(scratch.write("empty.so", "")).missing().reason == MissingReason::unparseable);
  CHECK(read_elf_needed(scratch.write("script.so", "/* GNU ld script */ GROUP ( libc.so.6 )")).missing().reason ==
        MissingReason::unparseable);
  CHECK(read_elf_needed(scratch.write("magic-only.so", std::string("\x7f" "ELF", 4))).missing().reason ==
        MissingReason::unparseable);

  REQUIRE(::mkfifo(scratch.path("fifo.so").c_str(), 0644) == 0);
  CHECK(read_elf_needed(scratch.path("fifo.so")).missing().reason == MissingReason::failed);
  CHECK(read_elf_needed(scratch.root()).missing().reason == MissingReason::failed);
  CHECK(read_elf_needed(scratch.path("absent.so")).missing().reason == MissingReason::not_present);
}

TEST_CASE("elf needed: a library whose bytes were flipped still gives a value or an error") {
  const std::string whole = file_bytes(python_fixture(kFlashAttn));
  ScratchDirectory scratch;
  // Every 8-byte word of the headers' first KiB set to 0xff in turn: sizes,
  // offsets and counts that point anywhere.
  for (std::size_t offset = 16; offset < 1024 && offset < whole.size(); offset += 8) {
    std::string damaged = whole;
    for (std::size_t i = offset; i < offset + 8; ++i) damaged[i] = '\xff';
    const std::string path = scratch.write("damaged.so", damaged);
    auto needed = read_elf_needed(path);
    if (needed) CHECK(needed->size() <= 4096);
  }
}
