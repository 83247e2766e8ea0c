// Which ZeRO stage (and offload, and whether LoRA) a job should use on the
// hardware it has: the usual advice ("the least sharded stage the GPUs
// allow") made quantitative, and with the host memory the checkpoint save
// needs, which that advice forgets:
//   ZeRO-2 when the model states fit the GPUs and its save peak fits host
//   memory with a margin; else ZeRO-3 (with the 16-bit gather on save);
//   offload only when even ZeRO-3 does not fit the GPUs; LoRA, then QLoRA,
//   when nothing full fits, not even without the margins (what is trained
//   is the user's choice: a tight fit of it is advised first, and said to be
//   tight). Every option is given with its numbers.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "estimate/memory_estimate.h"

namespace ftdiag::estimate {

// What must stay free: a GPU's allocator fragments and kernels need
// workspace; the page cache, other processes and the kernel need host RAM.
inline constexpr double kGpuUsableFraction = 0.9;
inline constexpr double kHostUsableFraction = 0.85;

struct Resources {
  std::optional<double> gpu_memory_bytes;   // one GPU's
  std::optional<double> host_memory_bytes;  // one node's RAM (or its cgroup limit, if lower)
  std::string host_memory_source;           // "--host-mem", "MemTotal", "cgroup limit"
};

struct Option {
  std::string name;  // "ZeRO-3, 16-bit gather on save"
  TrainingSetup setup;
  double per_gpu_bytes = 0;
  double host_save_peak_bytes = 0;
  double host_peak_bytes = 0;
  std::string host_peak_when;
  // With the margins above; none when that memory is not known.
  std::optional<bool> fits_gpu;
  std::optional<bool> fits_host;
  // Within the memory but not the margin.
  bool tight = false;
};

struct Advice {
  std::optional<std::size_t> chosen;  // index into options; none when nothing could be estimated or nothing fits
  std::vector<std::string> reasons;
  std::vector<Option> options;
  // ZeRO-2's most ranks per node whose save fits host memory (when the
  // save is what rules ZeRO-2 out).
  std::optional<std::uint64_t> zero2_ranks_per_node_that_fit;
};

Advice advise(const ModelShape& shape, const TrainingSetup& setup, const Resources& resources);

// "ZeRO-2", "ZeRO-3 + optimizer offload", "QLoRA, ZeRO-2", ...
std::string describe_setup(const TrainingSetup& setup);

}  // namespace ftdiag::estimate
