// Replays every file of a corpus directory through one fuzz target's entry
// point, so fuzz targets build and run in ordinary (gcc) test runs too:
//
//   fuzz_replay TARGET CORPUS_DIR...     (TARGET: redact for fuzz_redact.cpp)
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

namespace {

struct FuzzTarget {
  std::string_view name;
  int (*test_one_input)(const std::uint8_t* data, std::size_t size);
};

#include "fuzz_targets.inc"

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: fuzz_replay TARGET CORPUS_DIR...\n");
    return 2;
  }
  const FuzzTarget* target = nullptr;
  for (const auto& t : kFuzzTargets) {
    if (t.name == argv[1]) target = &t;
  }
  if (target == nullptr) {
    std::fprintf(stderr, "no fuzz target named %s\n", argv[1]);
    return 2;
  }
  int replayed = 0;
  for (int i = 2; i < argc; ++i) {
    std::filesystem::path root(argv[i]);
    if (!std::filesystem::exists(root)) {
      std::fprintf(stderr, "no corpus at %s\n", argv[i]);
      return 1;
    }
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
      if (!entry.is_regular_file()) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      target->test_one_input(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++replayed;
    }
  }
  std::printf("replayed %d inputs through %s\n", replayed, argv[1]);
  return replayed > 0 ? 0 : 1;
}
