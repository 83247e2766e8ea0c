#include <doctest/doctest.h>

#include "collect/host/gpu_devices.h"
#include "scratch_tree.h"

using namespace ftdiag::collect;
using ftdiag::collect::testing::ScratchTree;

TEST_CASE("visible NVIDIA GPUs: the driver's /dev/nvidiaN files, narrowed by CUDA_VISIBLE_DEVICES as CUDA reads it") {
  ScratchTree tree;
  const SystemRoots roots{tree.root()};
  tree.write("dev/null", "");
  CHECK(visible_nvidia_gpus(roots, nullptr) == 0);  // no GPU: whatever CUDA_VISIBLE_DEVICES says
  CHECK(visible_nvidia_gpus(roots, "0,1") == 0);
  for (const char* name : {"dev/nvidia0", "dev/nvidia1", "dev/nvidia2", "dev/nvidia3", "dev/nvidiactl", "dev/nvidia-uvm",
                           "dev/nvidia-uvm-tools", "dev/nvidia-modeset"}) {
    tree.write(name, "");
  }
  CHECK(visible_nvidia_gpus(roots, nullptr) == 4);
  CHECK(visible_nvidia_gpus(roots, "1,3") == 2);
  CHECK(visible_nvidia_gpus(roots, "GPU-5c1a8f2e-0000-0000-0000-000000000000") == 1);
  CHECK(visible_nvidia_gpus(roots, "0,-1,2") == 1);  // CUDA stops at the first invalid entry
  CHECK(visible_nvidia_gpus(roots, "") == 0);
  CHECK(visible_nvidia_gpus(roots, "0,1,2,3,4,5,6,7") == 4);  // never more than the node has
}
