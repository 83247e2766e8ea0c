// PyTorch's CUDA out-of-memory message, as its caching allocator words it
// (c10/cuda/CUDACachingAllocator.cpp, DeviceCachingAllocator::malloc): what
// was asked for, what the GPU had, and how the allocator's memory was split.
// The wording changed three times:
//
//   1.0-1.4  CUDA out of memory. Tried to allocate 12.50 MiB (GPU 0; 10.92 GiB total capacity;
//            8.57 MiB already allocated; 9.28 GiB free; 4.68 MiB cached)
//   1.5-2.0  ... (GPU 0; 15.78 GiB total capacity; 14.54 GiB already allocated; 4.75 MiB free;
//            [8.00 GiB allowed; ]14.67 GiB reserved in total by PyTorch) If reserved memory is >>
//            allocated memory try setting max_split_size_mb to avoid fragmentation. ...
//   2.1      CUDA out of memory. Tried to allocate 64.00 MiB. GPU 0 has a total capacty of
//            14.58 GiB of which 34.50 MiB is free. Process 4125680 has 14.54 GiB memory in use.
//            Of the allocated memory 14.38 GiB is allocated by PyTorch, and 30.60 MiB is reserved
//            by PyTorch but unallocated. If reserved but unallocated memory is large try setting
//            max_split_size_mb to avoid fragmentation. ...            ("capacty": sic, 2.1 only)
//   2.2-     ... GPU 0 has a total capacity of 79.10 GiB of which 6.81 MiB is free. Including
//            non-PyTorch memory, this process has 79.08 GiB memory in use. [8.00 GiB allowed; ]
//            Of the allocated memory 77.50 GiB is allocated by PyTorch, [with 1.00 GiB allocated
//            in private pools (e.g., CUDA Graphs), ]and 1.02 GiB is reserved by PyTorch but
//            unallocated. If reserved but unallocated memory is large try setting
//            PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True ... (PYTORCH_ALLOC_CONF since 2.9)
//
// Sizes are c10's format_size: "N bytes" up to 1 KiB, then KiB, MiB, GiB
// with two decimals (a 130206.04 GiB request stays in GiB); TiB is read too.
// A size read back is the printed, rounded value (±0.005 of its unit).
//
// The per-process lines (2.1 and later) are NVML's view of the GPU: the
// process that raised the error is "this process" only when NVML's pid is
// its own, so in a container (another pid namespace) it is one of the
// "Process N" entries instead.
//
// Pure and bounded: never throws, reads at most kMaxMessageBytes from the
// start of the message, linear time on any input (RE2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace ftdiag::parse {

enum class CudaOomWording {
  request_only,  // "Tried to allocate X" and nothing after it that reads as any wording
  v1_0,          // "... free; X cached)"
  v1_5,          // "... free; X reserved in total by PyTorch)"
  v2_1,          // "GPU N has a total capacty of ..."
  v2_2,          // "GPU N has a total capacity of ..."
};

// One "Process N has X memory in use." entry (2.1 and later).
struct GpuProcessUse {
  std::optional<int> pid;  // absent: "Including non-PyTorch memory, this process"
  std::uint64_t bytes = 0;

  bool operator==(const GpuProcessUse&) const = default;
};

struct CudaOomMessage {
  CudaOomWording wording = CudaOomWording::request_only;
  std::uint64_t requested_bytes = 0;  // the block the allocator asked the driver for
  std::optional<int> gpu;             // the device index as the process numbers it
  std::optional<std::uint64_t> total_bytes;
  std::optional<std::uint64_t> free_bytes;      // cudaMemGetInfo's free, after the allocator emptied its cache
  std::optional<std::uint64_t> allowed_bytes;   // torch.cuda.set_per_process_memory_fraction's cap, when set
  std::optional<std::uint64_t> allocated_bytes; // held by live tensors (the allocator's allocated_bytes)
  std::optional<std::uint64_t> reserved_bytes;  // held by the allocator in all (allocated + cached)
  // Reserved but in no tensor: printed since 2.1, reserved - allocated before.
  std::optional<std::uint64_t> reserved_unallocated_bytes;
  std::optional<std::uint64_t> private_pool_bytes;  // CUDA graphs' pools, when printed
  std::vector<GpuProcessUse> processes;             // in the order printed

  bool operator==(const CudaOomMessage&) const = default;
};

inline constexpr std::size_t kMaxMessageBytes = 4096;

// The message in `text` (a log line, or several joined; a prefix such as
// "torch.OutOfMemoryError: " or "[rank0]: " may come before it). nullopt when
// the text holds no "CUDA out of memory. Tried to allocate SIZE".
std::optional<CudaOomMessage> parse_cuda_oom_message(std::string_view text);

// A size as format_size prints it ("20.00 MiB", "0 bytes") in bytes;
// nullopt for anything else or a size beyond 2^62 bytes.
std::optional<std::uint64_t> parse_allocator_size(std::string_view text);

// The first torch release whose wording this is ("1.0", "1.5", "2.1", "2.2"),
// empty for request_only.
std::string_view first_release_of(CudaOomWording wording);

}  // namespace ftdiag::parse
