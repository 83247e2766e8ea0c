// The interrupted thread's registers, out of the handler's ucontext, by the
// names the record uses (`register rip 0x...`). x86_64 and aarch64.
#pragma once

#include <cstdint>

namespace ftdiag::crash {

struct NamedRegister {
  const char* name;
  std::uint64_t value;
};

inline constexpr int kMaxRegisters = 40;

// Fills out[] in the record's order and returns how many; 0 on other
// architectures. Async-signal-safe.
int read_registers(const void* ucontext, NamedRegister* out);

// The program counter of the ucontext (rip, pc); 0 on other architectures.
std::uintptr_t instruction_pointer(const void* ucontext);

}  // namespace ftdiag::crash
