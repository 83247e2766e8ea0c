// How many NVIDIA GPUs a job started here would see, without asking the
// driver (no library loaded, no CUDA context): the /dev/nvidiaN device files
// the driver creates, one per GPU, narrowed by CUDA_VISIBLE_DEVICES as CUDA
// reads it. `ftdiag run`'s save forecast counts a launcher's ranks with it
// when the command does not say them (`deepspeed train.py` takes every GPU).
#pragma once

#include <cstddef>

#include "collect/system_roots.h"

namespace ftdiag::collect {

// 0 without a /dev/nvidiaN. CUDA_VISIBLE_DEVICES (null: unset) keeps the
// entries before the first invalid one ("0,-1,1" is one GPU; "" is none),
// indices or UUIDs alike, and never more than the node has.
std::size_t visible_nvidia_gpus(const SystemRoots& roots, const char* cuda_visible_devices);

}  // namespace ftdiag::collect
