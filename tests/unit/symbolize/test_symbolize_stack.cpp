// symbolize_stack on this test binary's own code (built -g, at -O2 in the
// default RelWithDebInfo build): names, file:line, an always_inline function
// named with the function it was inlined into, and the one return-address
// adjustment.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "skip.h"
#include "symbolize/native_stack.h"
#include "unit/symbolize/self_maps.h"

using namespace ftdiag::symbolize;
using namespace ftdiag::symbolize::test;

namespace {

volatile int g_keep = 0;

[[gnu::noinline]] std::uint64_t return_address_of_this_call() {
  g_keep = g_keep + 1;
  return reinterpret_cast<std::uint64_t>(__builtin_return_address(0));
}

constexpr int kInlinedCallLine = __LINE__ + 3;
// always_inline holds at every optimisation level, -O0 included.
static inline __attribute__((always_inline)) std::uint64_t inlined_helper() {
  return return_address_of_this_call();
}

constexpr int kOuterCallLine = __LINE__ + 2;
[[gnu::noinline]] std::uint64_t outer_function() {
  const std::uint64_t address = inlined_helper();
  asm volatile("" : : "r"(address) : "memory");  // used after the call: no tail call
  return address;
}

}  // namespace

// A function whose last instruction is a call: its return address is the
// first instruction of the next function. Laid out by hand so that no
// padding falls between them.
#if defined(__x86_64__)
extern "C" [[noreturn, gnu::used]] void ftdiag_test_never_returns() { std::abort(); }
asm(R"(
  .text
  .globl ftdiag_test_ends_in_call
  .type ftdiag_test_ends_in_call, @function
ftdiag_test_ends_in_call:
  call ftdiag_test_never_returns
  .size ftdiag_test_ends_in_call, .-ftdiag_test_ends_in_call
  .globl ftdiag_test_next_function
  .type ftdiag_test_next_function, @function
ftdiag_test_next_function:
  ret
  .size ftdiag_test_next_function, .-ftdiag_test_next_function
)");
extern "C" void ftdiag_test_ends_in_call();
extern "C" void ftdiag_test_next_function();
#endif

TEST_CASE("symbolize: an inlined call names the inlined function, then the function it was inlined into") {
  const std::uint64_t return_address = outer_function();
  ModuleSymbols symbols;
  auto frames = symbolize_stack({address_of(&outer_function), return_address}, self_maps(), symbols);
  REQUIRE(frames.size() == 2);
  INFO("module: ", frames[1].module);
  CHECK(frames[1].module == mapping_holding(return_address).path);
  CHECK(frames[1].return_address);
  CHECK(frames[1].build_id.size() >= 16);
  REQUIRE(frames[1].places.size() == 2);
  const auto& inlined = frames[1].places[0];
  const auto& caller = frames[1].places[1];
  CHECK(inlined.function.find("inlined_helper") != std::string::npos);
  CHECK(inlined.inlined);
  CHECK(inlined.file.ends_with("test_symbolize_stack.cpp"));
  CHECK(inlined.line == kInlinedCallLine);
  CHECK(caller.function.find("outer_function") != std::string::npos);
  CHECK_FALSE(caller.inlined);
  CHECK(caller.file.ends_with("test_symbolize_stack.cpp"));
  CHECK(caller.line == kOuterCallLine);
  // Frame 0 is an instruction, looked up as it is: the function's entry
  // (where the inlined code may already begin).
  REQUIRE(frames[0].resolved());
  CHECK(frames[0].places.back().function.find("outer_function") != std::string::npos);
  CHECK(frames[0].places.back().line >= kOuterCallLine - 1);  // the opening line, or the call inlined first
  CHECK(frames[0].places.back().line <= kOuterCallLine);
  CHECK_FALSE(frames[0].return_address);
}

TEST_CASE("symbolize: a return address after a function's last call names the caller, not the next function") {
#if defined(__x86_64__)
  const std::uint64_t caller = address_of(&ftdiag_test_ends_in_call);
  const std::uint64_t next = address_of(&ftdiag_test_next_function);
  REQUIRE(next == caller + 5);  // call rel32 is five bytes
  ModuleSymbols symbols;
  // The same address twice: as frame 0 it is an instruction of the next
  // function; as frame 1 it is the return address of the call before it.
  auto frames = symbolize_stack({next, next}, self_maps(), symbols);
  REQUIRE(frames.size() == 2);
  REQUIRE(frames[0].resolved());
  REQUIRE(frames[1].resolved());
  CHECK(frames[0].places.back().function == "ftdiag_test_next_function");
  CHECK(frames[1].places.back().function == "ftdiag_test_ends_in_call");
  CHECK(frames[1].module_offset + 1 == frames[0].module_offset);
  CHECK(lookup_address({next, true}) == next - 1);
  CHECK(lookup_address({next, false}) == next);
  // A crash record whose first frame is a return address says so.
  auto raw = raw_frames({next}, /*first_is_return_address=*/true);
  auto named = symbolize_frames(raw, self_maps(), symbols, deadline_after({}));
  REQUIRE(named.frames.size() == 1);
  REQUIRE(named.frames[0].resolved());
  CHECK(named.frames[0].places.back().function == "ftdiag_test_ends_in_call");
#else
  FTDIAG_SKIP("the hand-laid functions of this test are x86-64 code");
#endif
}

TEST_CASE("symbolize: a spent budget leaves frames with their module and offset, unnamed") {
  ModuleSymbols symbols;
  const std::uint64_t address = address_of(&outer_function);
  auto named = symbolize_frames(raw_frames({address, address}), self_maps(), symbols,
                                std::chrono::steady_clock::now() - std::chrono::seconds(1));
  CHECK(named.out_of_time);
  REQUIRE(named.frames.size() == 2);
  for (const auto& frame : named.frames) {
    CHECK_FALSE(frame.resolved());
    CHECK(frame.module == mapping_holding(address).path);
    CHECK(frame.module_offset != 0);
  }
  auto with_time = symbolize_stack({address}, self_maps(), symbols, StackBudget{.seconds = 10});
  REQUIRE(with_time.size() == 1);
  CHECK(with_time[0].resolved());
}

TEST_CASE("symbolize: a mapping whose build-id differs from the file's on disk is not named") {
  const std::uint64_t address = address_of(&outer_function);
  auto maps = self_maps();
  ModuleSymbols symbols;
  for (auto& range : maps) {
    if (address >= range.start && address < range.end) range.build_id = "00112233445566778899aabbccddeeff00112233";
  }
  auto frames = symbolize_stack({address}, maps, symbols);
  REQUIRE(frames.size() == 1);
  CHECK_FALSE(frames[0].resolved());
  CHECK(frames[0].build_id == "00112233445566778899aabbccddeeff00112233");
  for (auto& range : maps) {
    if (!range.build_id.empty()) range.build_id = symbols.build_id(range.path);
  }
  frames = symbolize_stack({address}, maps, symbols);
  REQUIRE(frames.size() == 1);
  CHECK(frames[0].resolved());
}
