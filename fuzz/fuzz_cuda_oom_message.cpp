// CUDA out-of-memory messages from arbitrary bytes: the reader must never
// crash, and what it returns must hold together — sizes within the bound it
// promises, the split of the allocator's memory consistent, the per-process
// lines and the device fields only with a wording that prints them.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "parse/logs/cuda_oom_message.h"

namespace {

constexpr std::uint64_t kMaxSize = std::uint64_t{1} << 62;

bool within(const std::optional<std::uint64_t>& bytes) { return !bytes || *bytes <= kMaxSize; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using ftdiag::parse::CudaOomWording;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto m = ftdiag::parse::parse_cuda_oom_message(text);
  if (!m) return 0;
  if (text.find("CUDA out of memory.") == std::string_view::npos) __builtin_trap();
  if (m->requested_bytes > kMaxSize || !within(m->total_bytes) || !within(m->free_bytes) || !within(m->allowed_bytes) ||
      !within(m->allocated_bytes) || !within(m->reserved_unallocated_bytes) || !within(m->private_pool_bytes)) {
    __builtin_trap();
  }
  if (m->reserved_bytes && m->reserved_unallocated_bytes && *m->reserved_unallocated_bytes > *m->reserved_bytes) __builtin_trap();
  if (m->wording == CudaOomWording::request_only && (m->gpu || m->total_bytes || m->free_bytes || m->reserved_bytes)) __builtin_trap();
  if (m->wording != CudaOomWording::request_only && (!m->gpu || *m->gpu < 0 || !m->total_bytes || !m->free_bytes)) __builtin_trap();
  const bool per_process = m->wording == CudaOomWording::v2_1 || m->wording == CudaOomWording::v2_2;
  if (!per_process && (!m->processes.empty() || m->private_pool_bytes)) __builtin_trap();
  for (const auto& process : m->processes) {
    if (process.bytes > kMaxSize || (process.pid && *process.pid < 0)) __builtin_trap();
  }
  // What the parser reads lies within its window: a message is at most a few hundred bytes.
  if (m->processes.size() > ftdiag::parse::kMaxMessageBytes / 16) __builtin_trap();
  ftdiag::parse::parse_allocator_size(text);
  return 0;
}
