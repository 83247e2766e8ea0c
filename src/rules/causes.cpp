#include "rules/causes.h"

#include <algorithm>
#include <array>

namespace ftdiag::rules {

namespace {

constexpr std::array kCauses = std::to_array<CauseSpec>({
    {"host-oom-checkpoint-save", "host RAM exhausted while saving a checkpoint (ZeRO-2 / full state dict gathered on CPU)", true},
    {"host-oom-model-load", "every rank loads full weights into host RAM at start", true},
    {"host-oom-dataloader", "dataset preprocessing or dataloader workers exhaust host RAM", true},
    {"host-oom-offload", "ZeRO-Offload / CPU offload needs more host RAM than there is", true},
    {"host-oom-growth", "host memory grows steadily until killed (leak, caching)", true},
    {"host-oom", "the node's RAM was exhausted (the kernel's OOM killer acted for the whole node) and no more specific consumer is known", true},
    {"container-oom", "a cgroup limit (Kubernetes, Docker, Slurm) was hit, not the node's RAM, and no more specific consumer is known", true},
    {"shm-exhausted", "/dev/shm too small (bus error, dataloader workers)", false},
    {"external-kill", "killed by a scheduler, a time limit, preemption, a watchdog or a user", false},
    {"cuda-driver-mismatch", "the framework's CUDA build is newer than the driver supports", false},
    {"library-abi-mismatch", "an extension built against another torch/CUDA, or two CUDA runtimes loaded", false},
    {"gpu-hardware-xid", "the GPU or its driver failed (NVIDIA Xid)", false},
    {"gpu-oom", "CUDA out of memory, classified by phase (load, forward/backward, optimizer step, fragmentation)", false},
    {"nccl-failure", "a collective failed or timed out (often a consequence of another rank's death)", false},
    {"framework-bug-segfault", "a crash inside framework or extension code with a sound environment", false},
    {"stack-overflow", "the fault address sits in a thread's stack guard", false},
    {"unknown", "the evidence does not decide; the report says what would decide it and how to get it", false},
});

}  // namespace

std::span<const CauseSpec> cause_catalogue() { return kCauses; }

const CauseSpec* find_cause(std::string_view id) {
  auto it = std::find_if(kCauses.begin(), kCauses.end(), [&](const CauseSpec& c) { return c.id == id; });
  return it == kCauses.end() ? nullptr : &*it;
}

bool is_valid_scope(std::string_view scope) { return scope == "node" || scope == "cgroup" || scope == "userspace"; }

}  // namespace ftdiag::rules
