// PyTorch's CUDA out-of-memory message in every wording its caching
// allocator has had (1.0-1.4, 1.5-2.0, 2.1's "capacty", 2.2 and later), as
// users posted it, and texts that only look like it.
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "parse/logs/cuda_oom_message.h"

using ftdiag::parse::CudaOomMessage;
using ftdiag::parse::CudaOomWording;
using ftdiag::parse::first_release_of;
using ftdiag::parse::GpuProcessUse;
using ftdiag::parse::parse_allocator_size;
using ftdiag::parse::parse_cuda_oom_message;

namespace {

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = kKiB * 1024;
constexpr std::uint64_t kGiB = kMiB * 1024;

// A size as the allocator printed it, in bytes (rounded like the parser).
std::uint64_t printed(double value, std::uint64_t unit) {
  return static_cast<std::uint64_t>(value * static_cast<double>(unit) + 0.5);
}

CudaOomMessage parsed(std::string_view text) {
  const auto message = parse_cuda_oom_message(text);
  REQUIRE_MESSAGE(message.has_value(), "not read as a CUDA OOM message: " << text);
  return *message;
}

}  // namespace

TEST_CASE("cuda oom message: sizes as c10's format_size prints them") {
  CHECK(parse_allocator_size("0 bytes") == 0u);
  CHECK(parse_allocator_size("1024 bytes") == 1024u);
  CHECK(parse_allocator_size("1.00 KiB") == 1024u);
  CHECK(parse_allocator_size("20.00 MiB") == 20 * kMiB);
  CHECK(parse_allocator_size("15.78 GiB") == printed(15.78, kGiB));
  CHECK(parse_allocator_size("130206.04 GiB") == printed(130206.04, kGiB));  // no TiB in c10: GiB grows
  CHECK(parse_allocator_size("1.50 TiB") == 3 * kGiB * 512);
  CHECK(parse_allocator_size("512 B") == 512u);
  for (std::string_view bad : {"", "MiB", "20.00MiB", "20.00 mib", "20.00 MB", "-1.00 MiB", ".50 MiB", "1e3 MiB", "20.00  MiB",
                               "999999999999999 TiB", "1.2.3 MiB"}) {
    CHECK_MESSAGE(!parse_allocator_size(bad), bad);
  }
}

TEST_CASE("cuda oom message: 1.5-2.0, the backward pass of case 086 (ParlAI#4452)") {
  const auto m = parsed(
      "RuntimeError: CUDA out of memory. Tried to allocate 21.06 GiB (GPU 3; 79.35 GiB total capacity; 63.19 GiB already allocated; "
      "8.57 GiB free; 68.48 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb "
      "to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF");
  CHECK(m.wording == CudaOomWording::v1_5);
  CHECK(m.requested_bytes == printed(21.06, kGiB));
  CHECK(m.gpu == 3);
  CHECK(m.total_bytes == printed(79.35, kGiB));
  CHECK(m.allocated_bytes == printed(63.19, kGiB));
  CHECK(m.free_bytes == printed(8.57, kGiB));
  CHECK(m.reserved_bytes == printed(68.48, kGiB));
  CHECK(m.reserved_unallocated_bytes == printed(68.48, kGiB) - printed(63.19, kGiB));
  CHECK_FALSE(m.allowed_bytes);
  CHECK(m.processes.empty());
}

TEST_CASE("cuda oom message: 1.0-1.4 said cached (pytorch/pytorch#16417)") {
  const auto m = parsed(
      "RuntimeError: CUDA out of memory. Tried to allocate 12.50 MiB (GPU 0; 10.92 GiB total capacity; 8.57 MiB already allocated; "
      "9.28 GiB free; 4.68 MiB cached)");
  CHECK(m.wording == CudaOomWording::v1_0);
  CHECK(m.requested_bytes == printed(12.5, kMiB));
  CHECK(m.allocated_bytes == printed(8.57, kMiB));
  CHECK(m.reserved_bytes == printed(4.68, kMiB));
  // Printed rounded, a cache below the allocation reads as nothing unallocated.
  CHECK(m.reserved_unallocated_bytes == 0u);
  CHECK(first_release_of(m.wording) == "1.0");
}

TEST_CASE("cuda oom message: 2.0 raised torch.cuda.OutOfMemoryError with the 1.x words, 0 bytes free") {
  const auto m = parsed(
      "    torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB (GPU 0; 4.00 GiB total capacity; 3.35 GiB "
      "already allocated; 0 bytes free; 3.41 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting "
      "max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF");
  CHECK(m.wording == CudaOomWording::v1_5);
  CHECK(m.free_bytes == 0u);
  CHECK(m.reserved_unallocated_bytes == printed(3.41, kGiB) - printed(3.35, kGiB));
}

TEST_CASE("cuda oom message: a per-process fraction adds \"X allowed\" in both wordings") {
  // Assembled from the allocator's format strings (set_per_process_memory_fraction).
  const auto old = parsed(
      "CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; 7.54 GiB already allocated; 4.75 MiB free; "
      "7.89 GiB allowed; 7.67 GiB reserved in total by PyTorch)");
  CHECK(old.allowed_bytes == printed(7.89, kGiB));
  CHECK(old.reserved_bytes == printed(7.67, kGiB));
  const auto now = parsed(
      "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 40.00 GiB is free. "
      "Including non-PyTorch memory, this process has 39.08 GiB memory in use. 39.55 GiB allowed; Of the allocated memory 38.00 GiB "
      "is allocated by PyTorch, and 512.00 MiB is reserved by PyTorch but unallocated.");
  CHECK(now.allowed_bytes == printed(39.55, kGiB));
  CHECK(now.allocated_bytes == 38 * kGiB);
}

TEST_CASE("cuda oom message: 2.1's \"total capacty\", a process seen from another pid namespace") {
  const auto m = parsed(
      "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB. GPU 0 has a total capacty of 14.58 GiB of which "
      "34.50 MiB is free. Process 4125680 has 14.54 GiB memory in use. Of the allocated memory 14.38 GiB is allocated by PyTorch, and "
      "30.60 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to "
      "avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF");
  CHECK(m.wording == CudaOomWording::v2_1);
  CHECK(first_release_of(m.wording) == "2.1");
  CHECK(m.requested_bytes == 64 * kMiB);
  CHECK(m.gpu == 0);
  CHECK(m.total_bytes == printed(14.58, kGiB));
  CHECK(m.free_bytes == printed(34.5, kMiB));
  REQUIRE(m.processes.size() == 1);
  CHECK(m.processes[0] == GpuProcessUse{.pid = 4125680, .bytes = printed(14.54, kGiB)});
  CHECK(m.allocated_bytes == printed(14.38, kGiB));
  CHECK(m.reserved_unallocated_bytes == printed(30.6, kMiB));
  CHECK(m.reserved_bytes == printed(14.38, kGiB) + printed(30.6, kMiB));
}

TEST_CASE("cuda oom message: 2.2 and later (pytorch/pytorch#16417, 2024)") {
  const auto m = parsed(
      "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 22.00 MiB. GPU 0 has a total capacity of 23.65 GiB of which "
      "11.06 MiB is free. Including non-PyTorch memory, this process has 23.60 GiB memory in use. Of the allocated memory 22.90 GiB is "
      "allocated by PyTorch, and 194.87 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try "
      "setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  "
      "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)");
  CHECK(m.wording == CudaOomWording::v2_2);
  REQUIRE(m.processes.size() == 1);
  CHECK_FALSE(m.processes[0].pid);
  CHECK(m.processes[0].bytes == printed(23.6, kGiB));
  CHECK(m.reserved_unallocated_bytes == printed(194.87, kMiB));
  CHECK_FALSE(m.private_pool_bytes);
}

TEST_CASE("cuda oom message: other processes beside this one, and nothing allocated by PyTorch") {
  const auto shared = parsed(
      "Error processing x.aac: CUDA out of memory. Tried to allocate 24.00 MiB. GPU 0 has a total capacity of 7.60 GiB of which 15.38 "
      "MiB is free. Process 3936 has 5.38 GiB memory in use. Including non-PyTorch memory, this process has 2.19 GiB memory in use. Of "
      "the allocated memory 217.80 MiB is allocated by PyTorch, and 50.20 MiB is reserved by PyTorch but unallocated. If reserved but "
      "unallocated memory is large try setting PYTORCH_ALLOC_CONF=expandable_segments:True to avoid fragmentation.");
  REQUIRE(shared.processes.size() == 2);
  CHECK(shared.processes[0] == GpuProcessUse{.pid = 3936, .bytes = printed(5.38, kGiB)});
  CHECK(shared.processes[1] == GpuProcessUse{.pid = std::nullopt, .bytes = printed(2.19, kGiB)});
  const auto empty = parsed(
      "CUDA out of memory. Tried to allocate 6.00 GiB. GPU 0 has a total capacity of 23.53 GiB of which 22.27 GiB is free. Process "
      "766286 has 28.06 MiB memory in use. Process 906550 has 442.57 MiB memory in use. Process 923794 has 384.00 MiB memory in use. Of "
      "the allocated memory 0 bytes is allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated.");
  CHECK(empty.processes.size() == 3);
  CHECK(empty.allocated_bytes == 0u);
  CHECK(empty.reserved_bytes == 0u);
}

TEST_CASE("cuda oom message: CUDA graphs' private pools") {
  // Assembled from the allocator's format string (torch 2.3 and later).
  const auto m = parsed(
      "CUDA out of memory. Tried to allocate 1.00 GiB. GPU 1 has a total capacity of 79.10 GiB of which 100.00 MiB is free. Including "
      "non-PyTorch memory, this process has 78.98 GiB memory in use. Of the allocated memory 70.00 GiB is allocated by PyTorch, with "
      "4.00 GiB allocated in private pools (e.g., CUDA Graphs), and 8.00 GiB is reserved by PyTorch but unallocated.");
  CHECK(m.gpu == 1);
  CHECK(m.private_pool_bytes == 4 * kGiB);
  CHECK(m.reserved_bytes == 78 * kGiB);
}

TEST_CASE("cuda oom message: a message pasted over several lines, behind a rank's prefix") {
  const auto m = parsed(
      "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.22 GiB. GPU 0 has a total capacity of\n"
      "15.77 GiB of which 959.44 MiB is free. Process 12447 has 14.83 GiB memory in use. Of the allocated memory 14.01 GiB\n"
      "is allocated by PyTorch, and 472.05 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory \n"
      "is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.");
  CHECK(m.wording == CudaOomWording::v2_2);
  CHECK(m.total_bytes == printed(15.77, kGiB));
  CHECK(m.reserved_unallocated_bytes == printed(472.05, kMiB));
}

TEST_CASE("cuda oom message: the request alone when the rest is cut or reworded") {
  const auto cut = parsed("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB");
  CHECK(cut.wording == CudaOomWording::request_only);
  CHECK(cut.requested_bytes == 2 * kGiB);
  CHECK_FALSE(cut.gpu);
  CHECK(first_release_of(cut.wording).empty());
  const auto partial = parsed("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity)");
  CHECK(partial.wording == CudaOomWording::request_only);
  CHECK_FALSE(partial.total_bytes);
  // The 2.x head without the allocator's split still gives the device.
  const auto head = parsed("CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 6.81 MiB is free.");
  CHECK(head.wording == CudaOomWording::v2_2);
  CHECK(head.free_bytes == printed(6.81, kMiB));
  CHECK_FALSE(head.allocated_bytes);
}

TEST_CASE("cuda oom message: other out-of-memory texts are not the allocator's") {
  for (std::string_view text : {"RuntimeError: CUDA error: out of memory", "RuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/THCCachingAllocator.cpp:510",
                                "XPU out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 64.00 GiB",
                                "CUDA out of memory. Tried to allocate lots", "RuntimeError: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`",
                                "", "CUDA out of memory."}) {
    CHECK_MESSAGE(!parse_cuda_oom_message(text), text);
  }
}
