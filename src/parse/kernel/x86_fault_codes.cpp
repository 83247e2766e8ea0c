#include "parse/kernel/x86_fault_codes.h"

namespace ftdiag::parse {

namespace {

constexpr std::uint64_t kProtection = 0x1;  // the page was present: a protection violation
constexpr std::uint64_t kWrite = 0x2;
constexpr std::uint64_t kUser = 0x4;
constexpr std::uint64_t kReserved = 0x8;
constexpr std::uint64_t kInstruction = 0x10;
constexpr std::uint64_t kProtectionKey = 0x20;
constexpr std::uint64_t kShadowStack = 0x40;

}  // namespace

std::string describe_page_fault_error(std::uint64_t error) {
  std::string text = (error & kUser) ? "user-mode " : "kernel-mode ";
  if (error & kInstruction) {
    text += (error & kProtection) ? "instruction fetch from a non-executable page" : "jump to an unmapped address";
  } else {
    text += (error & kWrite) ? "write " : "read ";
    text += (error & kProtection) ? "of a protected page" : "of an unmapped address";
  }
  if (error & kReserved) text += ", reserved bit set in a page table entry";
  if (error & kProtectionKey) text += ", protection-key violation";
  if (error & kShadowStack) text += ", shadow-stack access";
  return text;
}

}  // namespace ftdiag::parse
