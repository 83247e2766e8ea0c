#include "crash/registers.h"

#include <ucontext.h>

namespace ftdiag::crash {

#if defined(__x86_64__)

namespace {

struct GeneralRegister {
  const char* name;
  int index;  // into mcontext_t::gregs
};

// rip rsp rbp, then the rest in the order of docs/probes.md; err and trapno
// say why the kernel raised a fault (the page-fault error code, the vector).
constexpr GeneralRegister kRegisters[] = {
    {"rip", REG_RIP}, {"rsp", REG_RSP}, {"rbp", REG_RBP}, {"rax", REG_RAX},       {"rbx", REG_RBX},
    {"rcx", REG_RCX}, {"rdx", REG_RDX}, {"rsi", REG_RSI}, {"rdi", REG_RDI},       {"r8", REG_R8},
    {"r9", REG_R9},   {"r10", REG_R10}, {"r11", REG_R11}, {"r12", REG_R12},       {"r13", REG_R13},
    {"r14", REG_R14}, {"r15", REG_R15}, {"eflags", REG_EFL}, {"err", REG_ERR}, {"trapno", REG_TRAPNO},
};

}  // namespace

int read_registers(const void* ucontext, NamedRegister* out) {
  const auto& gregs = static_cast<const ucontext_t*>(ucontext)->uc_mcontext.gregs;
  int count = 0;
  for (const auto& r : kRegisters) out[count++] = {r.name, static_cast<std::uint64_t>(gregs[r.index])};
  return count;
}

std::uintptr_t instruction_pointer(const void* ucontext) {
  return static_cast<std::uintptr_t>(static_cast<const ucontext_t*>(ucontext)->uc_mcontext.gregs[REG_RIP]);
}

#elif defined(__aarch64__)

namespace {

constexpr const char* kNames[31] = {"x0",  "x1",  "x2",  "x3",  "x4",  "x5",  "x6",  "x7",  "x8",  "x9",  "x10",
                                    "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20", "x21",
                                    "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29", "x30"};

}  // namespace

int read_registers(const void* ucontext, NamedRegister* out) {
  const auto& m = static_cast<const ucontext_t*>(ucontext)->uc_mcontext;
  int count = 0;
  out[count++] = {"pc", m.pc};
  out[count++] = {"sp", m.sp};
  for (int i = 0; i < 31; ++i) out[count++] = {kNames[i], m.regs[i]};
  return count;
}

std::uintptr_t instruction_pointer(const void* ucontext) {
  return static_cast<const ucontext_t*>(ucontext)->uc_mcontext.pc;
}

#else

int read_registers(const void*, NamedRegister*) { return 0; }
std::uintptr_t instruction_pointer(const void*) { return 0; }

#endif

}  // namespace ftdiag::crash
