// The memory limit the OOM tests put on a job. ftdiag runs inside the same
// cgroup (as it would inside a container); built with sanitizers it needs
// about 100 MiB itself, so the limit grows to keep the job the biggest
// process there, the one the kernel kills.
#pragma once

#include <cstdint>

namespace ftdiag::itest {

#ifdef FTDIAG_SANITIZED
inline constexpr std::uint64_t kOomTestLimit = 512ull << 20;
#else
inline constexpr std::uint64_t kOomTestLimit = 64ull << 20;
#endif

inline constexpr std::uint64_t kOomTestLimitMiB = kOomTestLimit >> 20;

}  // namespace ftdiag::itest
