#include "rules/causes.h"

#include <algorithm>
#include <array>

namespace ftdiag::rules {

namespace {

constexpr std::array kCauses = std::to_array<CauseSpec>({
    {"host-oom-checkpoint-save", "host RAM exhausted while saving a checkpoint (ZeRO-2 / full state dict gathered on CPU)", true, "The job ran out of host memory while saving a checkpoint"},
    {"host-oom-model-load", "every rank loads full weights into host RAM at start", true, "The job ran out of host memory while loading the model"},
    {"host-oom-dataloader", "dataset preprocessing or dataloader workers exhaust host RAM", true, "The job ran out of host memory preparing data (dataset processing or DataLoader workers)"},
    {"host-oom-offload", "ZeRO-Offload / CPU offload needs more host RAM than there is", true, "CPU offload needed more host memory than there was"},
    {"host-oom-growth", "host memory grows steadily until killed (leak, caching)", true, "The job's host memory grew steadily until it was killed"},
    {"host-oom", "the node's RAM was exhausted (the kernel's OOM killer acted for the whole node) and no more specific consumer is known", true, "The job ran out of host memory"},
    {"container-oom", "a cgroup limit (Kubernetes, Docker, Slurm) was hit, not the node's RAM, and no more specific consumer is known", true, "The job hit the memory limit of its container or allocation"},
    {"shm-exhausted", "/dev/shm too small (bus error, dataloader workers)", false, "Shared memory (/dev/shm) ran out"},
    {"external-kill", "killed by a scheduler, a time limit, preemption, a watchdog or a user", false, "Something outside the job stopped it (a scheduler, a time limit, preemption, a watchdog or a user)"},
    {"cuda-driver-mismatch", "the framework's CUDA build is newer than the driver supports, or the driver's library and kernel module differ", false, "The GPU driver cannot run the job's CUDA (too old for its build, or half upgraded)"},
    {"library-abi-mismatch", "an extension built against another torch/CUDA, or two CUDA runtimes loaded", false, "An extension or library was built for another version of torch or CUDA"},
    {"gpu-hardware-xid", "the GPU or its driver failed (NVIDIA Xid)", false, "The GPU or its driver failed"},
    {"gpu-oom", "CUDA out of memory, classified by phase (load, forward/backward, optimizer step, fragmentation)", false, "The GPU ran out of memory"},
    {"nccl-failure", "a collective failed or timed out (often a consequence of another rank's death)", false, "A collective operation (NCCL) failed or timed out"},
    {"framework-bug-segfault", "a crash inside framework or extension code with a sound environment", false, "The job crashed inside framework or extension code"},
    {"stack-overflow", "the fault address sits in a thread's stack guard", false, "A thread overflowed its stack"},
    {"node-lost", "a node of the job vanished (power, a kernel panic, the network, every process on it killed at once): its records stop with no end, and the other ranks' deaths followed", false, "A node of the job vanished"},
    {"unknown", "the evidence does not decide; the report says what would decide it and how to get it", false, "ftdiag cannot tell yet why the job died"},
});

}  // namespace

std::span<const CauseSpec> cause_catalogue() { return kCauses; }

const CauseSpec* find_cause(std::string_view id) {
  auto it = std::find_if(kCauses.begin(), kCauses.end(), [&](const CauseSpec& c) { return c.id == id; });
  return it == kCauses.end() ? nullptr : &*it;
}

bool is_valid_scope(std::string_view scope) { return scope == "node" || scope == "cgroup" || scope == "userspace"; }

std::string_view scope_words(std::string_view scope) {
  if (scope == "node") return "the node's RAM was full";
  if (scope == "cgroup") return "at the memory limit of its container or allocation";
  if (scope == "userspace") return "killed by a userspace OOM daemon (systemd-oomd, earlyoom, a scheduler's monitor)";
  return "";
}

}  // namespace ftdiag::rules
