#include "facts/registry.h"

#include <algorithm>
#include <array>

namespace ftdiag::facts {

namespace {

using enum FactType;
using enum Unit;

// Grouped by what they describe. "The incident" is the first death by a
// signal anywhere in the job's tree, or else the job's own non-zero exit.
constexpr std::array kFacts = std::to_array<FactSpec>({
    // The job as a whole.
    {"job.exit_code", integer, none, "exit code of the job (the command ftdiag ran); missing when a signal killed it"},
    {"job.signal", integer, signal, "signal that killed the job's own process"},
    {"job.launcher_code", integer, none, "the job's status as launchers print it: N for exit(N), -S for signal S"},
    {"job.duration", number, seconds, "time from the start of the job to its end"},
    {"job.failed", boolean, none, "the job ended by a signal or with a non-zero exit code"},
    {"job.runs", integer, count, "runs (ranks or nodes) recorded in the job directory"},
    {"job.record_complete", boolean, none, "every run's journal has its end record (false: ftdiag itself was killed)"},

    // The incident: the first abnormal death.
    {"death.pid", integer, none, "pid of the process that died first by a signal (or of the job, for a non-zero exit)"},
    {"death.signal", integer, signal, "signal that killed the incident's process"},
    {"death.exit_code", integer, none, "exit code of the incident's process, when it exited"},
    {"death.core_dumped", boolean, none, "the incident's process dumped core"},
    {"death.after", number, seconds, "time from the start of the job to the incident"},
    {"death.command", string, none, "command line of the incident's process"},
    {"death.is_job", boolean, none, "the incident's process is the job itself (not a worker of it)"},
    {"death.role", string, none, "what the incident's process was to the job: launcher, rank, dataloader-worker, worker (another Python child of a rank), compile-worker, helper, or job (the command ftdiag ran, when it is none of these)"},
    {"death.role_because", string, none, "how the role was told (RANK=1 in its environment, the console named its pid, ...)"},
    {"death.rank", integer, none, "the rank of the incident's process (or of the rank whose worker it was), from RANK/LOCAL_RANK or --local_rank"},
    {"death.source", string, none, "which source decided the incident: journal (a death ftdiag recorded), kernel (a kernel record), log (a log line)"},
    {"death.inferred", string, none, "how the incident's status was inferred when no source observed it (a process that vanished while its cgroup counted an OOM kill); missing when observed"},
    {"death.witnesses", string, none, "how the death was seen: netlink, waitpid, subreaper, proc-zombie, proc-scan"},
    {"death.rss_bytes", integer, bytes, "the incident's process RSS at its last sample"},
    {"death.peak_rss_bytes", integer, bytes, "the incident's process highest RSS (the kernel's VmHWM or sampled)"},

    // Who sent the incident's signal (signal_generate tracepoint, as root).
    {"death.sender", string, none, "who sent the incident's signal: \"the kernel\" (the OOM killer, a fault) or \"pid N (comm)\""},
    {"death.sender_pid", integer, none, "pid of the process that sent the incident's signal (ftdiag's own sender when ftdiag forwarded it)"},
    {"death.sender_comm", string, none, "name of the process that sent the incident's signal"},
    {"death.sent_by_kernel", boolean, none, "the kernel generated the incident's signal (SI_KERNEL: the OOM killer, a fault)"},
    {"death.sender_in_job", boolean, none, "the incident's signal came from a process of the job's own tree (a launcher)"},

    // Signals ftdiag itself received.
    {"job.signals_received", integer, count, "signals ftdiag received while the job ran (forwarded or not)"},
    {"job.signal_sender", string, none, "who sent ftdiag its first signal: pid, name, uid and command line"},
    {"job.signal_sender_comm", string, none, "name of the process that sent ftdiag its first signal (slurmstepd, kubelet, bash)"},

    {"job.scheduler_job", string, none, "the scheduler's name for the job: slurm JOB.STEP, pbs JOB, lsf JOB, kubernetes POD"},
    {"node.oom_daemons", string, none, "userspace OOM killers running on the node at the start (systemd-oomd, earlyoom, ...), or none"},

    // What launchers, schedulers, runtimes and OOM daemons printed (rules/log-events.json).
    {"log.events", integer, count, "lines of launchers, schedulers, runtimes and OOM daemons recognised in the console and logs"},
    {"log.scheduler_cancel", string, none, "a scheduler cancelled the job: time-limit, preemption, node-failure, requeue, memory-error, cancelled or other"},
    {"log.scheduler_cancel_line", string, none, "the scheduler's cancel line (\"*** JOB 7 ON node1 CANCELLED AT ... DUE TO TIME LIMIT ***\")"},
    {"log.oom_reported", boolean, none, "a scheduler, runtime or systemd reported an OOM kill (Slurm oom_kill event, OOMKilled, a unit's oom-kill)"},
    {"log.oom_reported_line", string, none, "the first such line"},
    {"log.oom_reported_source", string, none, "who printed it: slurm, kubernetes, docker, systemd, ..."},
    {"log.scheduler_memory_kill", string, none, "the scheduler killed the job itself for exceeding its memory limit (Slurm's own enforcement: no kernel OOM)"},
    {"log.oom_daemon_kill", string, none, "a userspace OOM daemon's kill line (systemd-oomd, earlyoom)"},
    {"log.eviction", string, none, "a Kubernetes eviction line"},
    {"log.shm_error", string, none, "a shared-memory error line (/dev/shm full: \"unable to write to file </torch_...>: No space left on device\")"},
    {"log.cuda_oom", string, none, "a CUDA out-of-memory line (\"CUDA out of memory. Tried to allocate ...\")"},
    {"log.cuda_driver_too_old", string, none, "a line saying the driver is too old for the CUDA torch was built with (\"The NVIDIA driver on your system is too old (found version 12040)\")"},
    {"log.cuda_driver_found_version", string, version, "the driver's CUDA version that line found (12040 is \"12.4\")"},
    {"log.cuda_unsupported_ptx", string, none, "a line saying PTX was compiled with an unsupported toolchain (newer than the driver's JIT)"},
    {"log.nccl_error", string, none, "an NCCL error or watchdog timeout line"},
    {"log.worker_died", string, none, "a line reporting a worker's death (\"DataLoader worker (pid N) is killed by signal: Killed.\")"},
    {"log.launcher_teardown", integer, count, "lines of a launcher signalling surviving ranks (torchrun's closing signal, DeepSpeed's Killing subprocess)"},
    {"log.first_event", string, none, "the first recognised line: kind and text"},
    {"log.cut_traceback_repeats", integer, count, "frames that repeat (a recursion) at the end of a traceback the log ends inside, cut before its exception line"},
    {"log.cut_traceback_frame", string, none, "the innermost of those frames: file, line and function"},
    {"log.word", string, none, "the failure word of the first line of the logs' last lines that holds one (rules/failure-words.json): host-memory, gpu-memory, shared-memory, crash, nccl, stopped, ..."},
    {"log.word_line", string, none, "that line, as the log has it"},
    {"log.host_memory_percent", number, none, "the highest host memory use a job's log printed, in percent (DeepSpeed's see_memory_usage: \"CPU Virtual Memory: used = 61.5 GB, percent = 97.8%\")"},
    {"log.host_memory_error", string, none, "a host allocation failure line (MemoryError, ArrowMemoryError, DefaultCPUAllocator: not enough memory, std::bad_alloc)"},
    {"log.library_abi_error", string, none, "a line saying a native library does not match what loads it (\"undefined symbol: _ZN2at...\", \"version `GLIBCXX_3.4.30' not found\")"},
    {"log.native_crash", string, none, "a line of a process reporting its own fatal signal (faulthandler's \"Fatal Python error: Segmentation fault\", UCX's \"Caught signal 11\", gdb's \"Program terminated with signal SIGSEGV\")"},
    {"log.native_crash_signal", integer, signal, "the signal that line names"},
    {"log.native_frames", integer, count, "native stack frames printed in the logs (UCX, c10 backtraces)"},
    {"log.native_frame_depth", integer, none, "the deepest frame number of a native backtrace in the log (gdb's #28301): tens of thousands of frames is a runaway recursion"},
    {"log.stack_overflow", string, none, "CPython's \"Fatal Python error: Cannot recover from stack overflow.\" line"},
    {"log.memory_corruption", string, none, "a glibc heap-check abort line (\"free(): invalid pointer\", \"double free or corruption\")"},
    {"log.cpp_terminate", string, none, "a \"terminate called after throwing an instance of ...\" line"},
    {"log.cuda_ecc_error", string, none, "a CUDA \"uncorrectable ECC error encountered\" line"},
    {"log.gpu_lost", string, none, "a line saying the driver lost a GPU (nvidia-smi's \"GPU is lost. Reboot the system to recover this GPU\")"},
    {"log.cuda_illegal_address", string, none, "a CUDA \"an illegal memory access was encountered\" line"},
    {"log.cuda_no_kernel_image", string, none, "a \"no kernel image is available for execution on the device\" line (a build without the GPU's architecture)"},
    {"log.nccl_timeout", string, none, "an NCCL watchdog timeout line (a collective that ran past its timeout)"},
    {"log.launcher_signalled", string, none, "a launcher's line saying it was itself signalled and stops every rank (torchelastic's \"Received 1 death signal, shutting down workers\")"},
    {"log.container_exit_code", integer, none, "a container's exit code a runtime printed (137: killed by SIGKILL)"},

    // A CUDA out-of-memory error as PyTorch's caching allocator printed it (the first such
    // line it worded in full), and what the process was doing (parse/logs/cuda_oom_message.h).
    {"gpu_oom.requested_bytes", integer, bytes, "the allocation that failed (\"Tried to allocate X\")"},
    {"gpu_oom.gpu", integer, none, "the GPU it failed on, as the process numbers its devices"},
    {"gpu_oom.total_bytes", integer, bytes, "that GPU's total memory, as the message printed it"},
    {"gpu_oom.free_bytes", integer, bytes, "the GPU's free memory then, after PyTorch had returned its cache (cudaMemGetInfo)"},
    {"gpu_oom.allocated_bytes", integer, bytes, "memory the process's live tensors held (\"allocated by PyTorch\", \"already allocated\")"},
    {"gpu_oom.reserved_bytes", integer, bytes, "memory PyTorch's caching allocator held in all: its tensors and its cache"},
    {"gpu_oom.reserved_unallocated_bytes", integer, bytes, "memory the allocator held in no tensor (printed since torch 2.1; reserved - allocated before): free blocks it could not use for the request"},
    {"gpu_oom.fragmentation_ratio", number, ratio, "reserved_unallocated / reserved: the share of the allocator's memory that held no tensor and still could not serve the request"},
    {"gpu_oom.shortfall_bytes", integer, bytes, "requested - (free + reserved_unallocated), at least 0: what was missing even had the cached memory been one block (0: the memory was there, in pieces)"},
    {"gpu_oom.process_bytes", integer, bytes, "the failing process's whole use of the GPU, non-PyTorch memory included (CUDA context, NCCL, cuBLAS): torch 2.1+'s \"this process has X memory in use\""},
    {"gpu_oom.other_processes_bytes", integer, bytes, "memory other processes held on that GPU (torch 2.1+'s \"Process N has X memory in use\"); known only when the message names this process too (in a container it is one of the \"Process N\")"},
    {"gpu_oom.message_release", string, version, "the first torch release with the message's wording: 1.0 (\"cached\"), 1.5 (\"reserved in total by PyTorch\", until 2.0), 2.1 (\"total capacty\"), 2.2 (\"expandable_segments\")"},
    {"host_memory_error.phase", string, none, "what the process was doing when a host allocation failed (MemoryError, DefaultCPUAllocator, std::bad_alloc), from the traceback's frames above the error: model-load, checkpoint-save, evaluation, data-preprocessing or training"},
    {"host_memory_error.phase_because", string, none, "the traceback frame that decided host_memory_error.phase"},
    {"gpu_oom.phase", string, none, "what the process was doing: model-load, forward, backward, optimizer-step, evaluation, checkpoint-save (from the traceback's frames above the error), or training (the log's phase alone)"},
    {"gpu_oom.phase_because", string, none, "the traceback frame or the log line that decided gpu_oom.phase"},
    {"gpu_oom.steps_before", integer, count, "training steps done before the error, as the last progress bar or step line before it counted them"},

    // The kernel's log over the job's time.
    {"kernel_log.read", boolean, none, "the kernel's log over the job's time was read (live, or post-mortem); missing with why not"},
    {"kernel.oom_kills", integer, count, "OOM kills the kernel logged for the job's processes"},
    {"kernel.unplaced_oom_kills", integer, count, "OOM kills in the kernel's log that cannot be told to be the incident's or not: no run's process is theirs, and their time or the death's is unknown (boot-relative stamps without a boot time)"},
    {"kernel.unplaced_oom_victim", string, none, "the victim of the last of those kills: pid and name, as the kernel printed them"},
    {"kernel.unplaced_oom_scope", string, none, "that kill's scope: node (the node's RAM) or cgroup (a memory cgroup's limit)"},
    {"kernel.other_oom_kills", integer, count, "OOM kills in the kernel's log other than the death's: other jobs', older runs', or victims after the first"},
    {"kernel.other_oom_victims", string, none, "those kills' victims (pid and name) and when, relative to the death, the nearest first"},
    {"oom.killed_by_kernel", boolean, none, "the kernel's OOM killer logged killing the incident's process"},
    {"oom.scope", string, none, "which limit the kernel's OOM kill was for: node (the node's RAM), cgroup (a container's or job's limit) or numa"},
    {"oom.constraint", string, none, "the kernel's OOM constraint: CONSTRAINT_NONE, CONSTRAINT_MEMCG, CONSTRAINT_CPUSET, ..."},
    {"oom.victim", string, none, "the OOM killer's victim as the kernel named it: pid N (comm)"},
    {"oom.victim_anon_rss_bytes", integer, bytes, "the victim's anonymous resident memory when killed (kernel)"},
    {"oom.victim_file_rss_bytes", integer, bytes, "the victim's file-backed resident memory when killed (kernel)"},
    {"oom.victim_shmem_rss_bytes", integer, bytes, "the victim's shared-memory resident memory when killed (kernel)"},
    {"oom.cgroup", string, none, "the memory cgroup whose limit was hit (kernel's oom_memcg)"},
    {"oom.limit_bytes", integer, bytes, "that cgroup's limit as the kernel printed it"},
    {"oom.top_consumers", string, none, "the largest processes of the kernel's task table at the kill: pid, name, RSS"},
    {"oom.matched_by", string, none, "how the kernel's record was tied to the job's process: pid, namespace pid, or cgroup and time; for a kernel log read alone, why this kill of several is the death (the pid or the time of the death the job's log reports)"},
    {"oom.report", string, none, "full (header, table, summary) or kill line only (the rest was rate-limited)"},
    {"oom.group_kill", boolean, none, "memory.oom.group killed the cgroup's processes together"},
    {"fault.kernel_line", string, none, "the kernel's line about the incident's fault (segfault at ..., traps: ...)"},
    {"fault.kind", string, none, "segfault, general-protection, trap, unhandled-exception or fatal-signal"},
    {"fault.object", string, none, "the file mapped where the fault's instruction was (libc.so.6, an extension)"},
    {"fault.address", string, none, "the address that faulted (hex)"},
    {"fault.function", string, none, "the function the fault was in, named from the module on disk (its DWARF, else its symbol table)"},
    {"fault.source", string, none, "the source file and line of the fault (file:line), when the module has DWARF"},
    {"fault.error_meaning", string, none, "the page-fault error code in words (user-mode read of an unmapped address)"},
    {"fault.null_pointer", boolean, none, "the fault address is below 64 KiB: a null pointer dereference"},
    {"fault.near_stack_pointer", boolean, none, "the fault address is within 64 KiB of the stack pointer: a stack overflow's guard page"},

    // The crash the probes recorded in the incident's process (docs/probes.md).
    {"crash.recorded", boolean, none, "the crash handler or faulthandler recorded the incident's process crashing"},
    {"crash.source", string, none, "what recorded it: crash-probe (native stack) or faulthandler (Python frames only)"},
    {"crash.function", string, none, "the function it crashed in: the first frame outside the C/C++ runtime (abort and raise report, they do not crash)"},
    {"crash.source_line", string, none, "that frame's source file and line (file:line), when its module has DWARF"},
    {"crash.module", string, none, "the file name of that frame's module (libtorch_cuda.so, an extension's .so)"},
    {"crash.module_role", string, none, "whose code that module is: cuda-driver, cuda-runtime, cuda-math, nccl, torch, python-extension, libpython, c-runtime or other"},
    {"crash.stack", string, none, "the native stack, innermost first, up to 12 frames: function (file:line) or module+offset"},
    {"crash.roles_on_stack", string, none, "the roles of the modules on the native stack, innermost first (\"c-runtime, torch, libpython\")"},
    {"crash.python_frame", string, none, "the innermost Python frame of the crashing thread: function (file:line)"},
    {"crash.python_stack", string, none, "the crashing thread's Python frames, innermost first, up to 8, the internals of torch and the standard library folded"},
    {"crash.address_class", string, none, "the fault address: null-page, stack-guard (a stack overflow), unmapped, mapped (a protection fault), general-protection (non-canonical)"},
    {"crash.duplicate_library", string, none, "a library family mapped from two files at once (two libcudart, two libtorch_cpu): which two"},
    {"crash.jit_extension", boolean, none, "the crashing module is a torch extension built just in time (torch_extensions)"},
    {"crash.ld_library_path", string, none, "LD_LIBRARY_PATH of the crashed process as it started (where the loader looked first)"},
    {"crash.ld_preload", string, none, "LD_PRELOAD of the crashed process as it started (ftdiag's crash handler is the last entry)"},
    {"crash.unwind", string, none, "how far the native unwinder got: complete, truncated or failed"},

    // The last gasp: memory near its limit, before the incident (docs/probes.md).
    {"gasp.pressure", number, ratio, "how near its limit memory was at the last gasp before the incident (the cgroup's usage / limit, or the node's used share)"},
    {"gasp.reason", string, none, "what neared its limit: \"the memory cgroup at 96% of its limit\""},
    {"gasp.largest", string, none, "the largest processes then, largest first: pid, RSS"},
    {"gasp.python_stack", string, none, "what the incident's process (else the largest asked) was running then: its Python frames, innermost first, up to 8, the internals of torch and the standard library folded"},
    {"gasp.python_function", string, none, "the innermost Python function of that stack"},
    {"gpu.xid", integer, none, "the NVIDIA Xid the kernel logged over the job's time (the first of hardware origin, else the first)"},
    {"gpu.xid_count", integer, count, "NVIDIA Xids logged over the job's time"},
    {"gpu.xid_meaning", string, none, "what that Xid means (NVIDIA's catalogue)"},
    {"gpu.xid_origin", string, none, "hardware, application or secondary"},
    {"gpu.xid_action", string, none, "what NVIDIA advises for that Xid"},
    {"gpu.xid_pci", string, none, "PCI address of the GPU that reported it"},
    {"gpu.xid_before_death", number, seconds, "time from the Xid to the incident"},

    // Deaths around the incident.
    {"deaths.by_signal", integer, count, "processes of the tree killed by any signal"},
    {"deaths.by_sigkill", integer, count, "processes of the tree killed by SIGKILL"},
    {"deaths.after_incident", integer, count, "processes that died by SIGTERM, SIGKILL, SIGINT or SIGHUP after the incident, less the SIGKILLs the cgroup counted as OOM kills: the teardown"},
    {"deaths.oom_killed_after_incident", integer, count, "processes SIGKILLed after the incident that the cgroup's OOM-kill counter accounts for (more OOM victims, not a teardown)"},
    {"deaths.teardown_span", number, seconds, "time from the incident to the last of those deaths"},
    {"deaths.forwarded_signals", integer, count, "signals ftdiag received from outside and forwarded to the job"},
    {"deaths.first_forwarded_signal", integer, signal, "the first signal ftdiag received from outside and forwarded (a scheduler's SIGTERM)"},

    // The job's memory cgroup.
    {"cgroup.version", integer, none, "cgroup version of the job's memory cgroup (1 or 2)"},
    {"cgroup.limit_bytes", integer, bytes, "memory limit of the job's cgroup; missing when there is no limit"},
    {"cgroup.peak_bytes", integer, bytes, "highest memory use of the job's cgroup (kernel peak or sampled)"},
    {"cgroup.peak_ratio", number, ratio, "cgroup peak / cgroup limit"},
    {"cgroup.usage_before_death_ratio", number, ratio, "cgroup usage / limit at the last sample before the incident"},
    {"cgroup.oom_kill", integer, count, "processes the OOM killer killed in the job's cgroup (kernel counter)"},
    {"cgroup.oom_events", integer, count, "times the cgroup hit its limit with an allocation about to fail (v2 only)"},
    {"cgroup.oom_group", boolean, none, "memory.oom.group is set: one OOM kill takes every process of the cgroup (v2; Kubernetes containers)"},
    {"cgroup.oom_group_kill", integer, count, "OOMs during the run that killed the whole cgroup at once (v2 memory.events oom_group_kill, 5.17+)"},
    {"cgroup.limit_to_node_ratio", number, ratio, "the cgroup's memory limit / the node's RAM (a 64 GiB container on a 1 TiB node: 0.06)"},

    // The node.
    {"node.mem_total_bytes", integer, bytes, "the node's RAM (MemTotal)"},
    {"node.min_available_bytes", integer, bytes, "lowest MemAvailable seen during the run"},
    {"node.min_available_ratio", number, ratio, "lowest MemAvailable / MemTotal"},
    {"node.available_before_death_ratio", number, ratio, "MemAvailable / MemTotal at the last sample before the incident"},

    // The job's memory over time (the cgroup's usage when it has a limit, else the job's RSS).
    {"memory.job_rss_peak_bytes", integer, bytes, "highest sum of RSS over the job's processes"},
    {"memory.samples", integer, count, "memory samples before the incident"},
    {"memory.startup_end", number, seconds, "time from the start of the run to the end of start-up (imports, building the model), from which the curve is measured"},
    {"memory.startup_end_by", string, none, "how the end of start-up was found: training-phase (the first training line) or memory-levelled (memory first stood still)"},
    {"memory.before_phase_at_death_bytes", integer, bytes, "the job's memory in the 10 s before the phase at death began (not before the stretch preceding it began), at its lowest (the cgroup's usage under a limit, else the summed RSS): what it held when a save or load started"},
    {"memory.after_startup_bytes", integer, bytes, "the job's memory once start-up was over (the median of the first tenth of the samples after it): the level training holds"},
    {"memory.growth_factor", number, none, "memory at its peak before the incident / memory after start-up (median of the first tenth of the samples measured)"},
    {"memory.rising_fraction", number, ratio, "share of sample-to-sample changes before the incident that were increases"},
    {"memory.rise_span", number, seconds, "time from when memory last stood near its level after start-up (within a tenth of the climb) to its peak before the incident"},
    {"memory.rise_start", number, seconds, "time from the start of the run to where that climb began"},
    {"memory.rise_span_ratio", number, ratio, "memory.rise_span / time from the end of start-up to the incident"},
    {"memory.shape", string, none, "the curve after start-up: flat, flat-then-jump, steady-climb, sawtooth or irregular"},
    {"memory.rise_began_in_phase", boolean, none, "the climb to the peak began after the phase at death (a save, a load) began"},

    // /dev/shm.
    {"shm.total_bytes", integer, bytes, "size of /dev/shm"},
    {"shm.peak_used_ratio", number, ratio, "highest /dev/shm use / its size"},

    // Training phase, from the console log.
    {"phase.at_death", string, none, "training phase of the last phase marker before the incident (checkpoint-save, model-load, training, evaluation, data-preprocessing)"},
    {"phase.at_death_line", string, none, "the console line that marked that phase, or the framework call the Python probe saw open"},
    {"phase.at_death_age", number, seconds, "time from that line to the incident"},
    {"phase.source", string, none, "what told the phase: probe (a framework call the Python probe saw open), console (the job's lines in a run's console.log) or log (a plain log file's lines)"},
    {"phase.lines_to_death", integer, count, "plain logs: lines between the last line of that phase and the line that reported the death (or the log's end)"},
    {"phase.checkpoint_saves_before", integer, count, "checkpoint-save markers before the incident"},

    // The console.
    {"console.tail", string, none, "the last console lines before the end, joined by newlines"},
    {"console.lines", integer, count, "lines the job printed"},
    {"console.last_line", string, none, "the last line the job printed that is not blank"},
    {"console.exception", string, none, "the exception line that ended the last Python traceback in the console's last lines (\"RuntimeError: ...\")"},
    {"console.exception_before_death", string, none, "the exception line of the last Python traceback that ended before the incident: what a process reported before the first death, not a launcher's re-raise after it"},

    // Where the environment facts (gpu.*, torch.*, python.*, host.*) came from.
    {"environment.source", string, none, "probe (ftdiag read the GPUs, the Python installation or the host's settings itself), report (only environment reports found with the evidence: collect_env, ds_report, nvidia-smi, pip lists, a user's sentence) or both (reports filled what was not probed)"},

    // The GPUs and their driver, as the GPU probe read them (probes/gpu).
    {"gpu.probe_ok", boolean, none, "the GPU probe ran and answered (false: it crashed, hung or could not start: a broken driver install does that)"},
    {"gpu.probe_failure", string, none, "why the GPU probe gave no answer: how it failed (\"killed by SIGSEGV\", \"timed out after 15 s\"), or why it did not run"},
    {"gpu.count", integer, count, "GPUs the driver lists (CUDA's view, after CUDA_VISIBLE_DEVICES)"},
    {"gpu.name", string, none, "the first GPU's name"},
    {"gpu.compute_capability", string, version, "the lowest compute capability among the GPUs (\"9.0\")"},
    {"gpu.driver_version", string, version, "the NVIDIA driver's version (NVML: \"535.104.05\")"},
    {"gpu.driver_cuda_version", string, version, "the newest CUDA the driver supports (cuDriverGetVersion: 12010 is \"12.1\")"},
    {"gpu.driver_cuda_major", integer, none, "the major version of gpu.driver_cuda_version"},
    {"gpu.cuda_init_result", integer, none, "cuInit's CUresult (0: the driver initialised; 100: no device; 999: unknown error)"},
    {"gpu.memory_total_bytes", integer, bytes, "the memory of all the GPUs together"},
    {"gpu.ecc_uncorrected", integer, count, "uncorrected ECC errors over all GPUs since the driver loaded (volatile counters)"},
    {"gpu.arch_min_driver", string, version, "the oldest driver that supports the GPU's architecture (table gpu-architectures)"},
    {"gpu.arch_name", string, none, "the GPU's architecture by its compute capability (table gpu-architectures)"},
    {"gpu.memory_peak_bytes", integer, bytes, "highest GPU memory use sampled on any one GPU during the run"},
    {"gpu.memory_peak_ratio", number, ratio, "that peak over the GPU's memory"},

    // The Python installation the job's command uses, read from files.
    {"python.read", boolean, none, "the interpreter answered with its sys.path"},
    {"python.interpreter", string, none, "the interpreter the command uses, and how it was found"},
    {"python.version", string, version, "the interpreter's version"},
    {"torch.version", string, none, "torch's __version__ (torch/version.py): \"2.7.0+cu128\""},
    {"torch.release", string, version, "torch's major.minor (\"2.7\"), to compare with what extensions were built for"},
    {"torch.cuda_version", string, version, "the CUDA torch was built for (torch.version.cuda, \"12.8\"); missing for a CPU or ROCm build"},
    {"torch.cuda_major", integer, none, "the major version of torch.cuda_version"},
    {"torch.build_tag", string, none, "the local tag of torch's version (\"cu128\", \"cpu\", \"rocm6.3\"); missing for PyPI's untagged wheels"},
    {"torch.cpu_only", boolean, none, "torch was built without CUDA and ROCm"},
    {"torch.location", string, none, "the directory torch is imported from"},
    {"torch.wheel_tag_for_driver", string, none, "the PyTorch CUDA wheel line the driver runs in full (\"cu121\"; table torch-cuda-wheels)"},
    {"cuda.build_min_driver", string, version, "the oldest driver that fully supports torch's CUDA (table cuda-toolkit-drivers)"},
    {"cuda.build_compat_min_driver", string, version, "the oldest driver that runs torch's CUDA under minor-version compatibility (table cuda-toolkit-drivers)"},
    {"cuda.runtime_wheel_version", string, version, "the version of the nvidia-cuda-runtime wheel installed beside torch"},
    {"cuda.toolkit_version", string, version, "the CUDA toolkit installed on the host (nvcc, as collect_env or ds_report found it): what extensions built at run time (DeepSpeed ops) compile with"},
    {"deepspeed.version", string, none, "DeepSpeed's version"},
    {"deepspeed.built_torch_release", string, version, "the torch major.minor DeepSpeed's ops were built against (git_version_info_installed.py)"},
    {"deepspeed.built_cuda_version", string, version, "the CUDA DeepSpeed's ops were built with"},
    {"deepspeed.installed_ops", string, none, "the DeepSpeed ops prebuilt at install (comma-separated); empty: every op is JIT-compiled when used"},
    {"bitsandbytes.version", string, none, "bitsandbytes' version"},
    {"bitsandbytes.cuda_libraries", string, none, "the CUDA versions bitsandbytes ships a library for (\"118,121\")"},
    {"bitsandbytes.has_torch_cuda_library", boolean, none, "bitsandbytes ships a library for torch's CUDA version"},
    {"ext.foreign_cuda_runtime_count", integer, count, "native libraries of extensions (not torch) linking a CUDA runtime of another major version than torch's"},
    {"ext.foreign_cuda_runtime", string, none, "the first of them: the library, the runtime it links and torch's CUDA"},
    {"ld.library_path_torch", string, none, "a LD_LIBRARY_PATH directory holding another libtorch, found before the one torch ships"},
    {"ld.library_path_cudart", string, none, "a LD_LIBRARY_PATH directory holding a CUDA runtime (libcudart), found before the one torch uses, and which"},
    {"ld.library_path_cudart_major", integer, none, "the major version of that CUDA runtime"},

    // The host's settings (read by preflight, or by ftdiag run as the job started).
    {"host.mem_total_bytes", integer, bytes, "the node's RAM"},
    {"host.swap_total_bytes", integer, bytes, "the node's swap"},
    {"host.ram_to_gpu_memory_ratio", number, none, "the node's RAM (or the cgroup's limit, when lower) over the memory of all its GPUs (rule of thumb: 1.5 to 2)"},
    {"host.cgroup_limit_bytes", integer, bytes, "the memory limit of the cgroup a job started here runs in; missing when it has none"},
    {"host.cgroup_limit_ratio", number, ratio, "that limit over the node's RAM"},
    {"host.shm_total_bytes", integer, bytes, "the size of /dev/shm"},
    {"host.shm_available_bytes", integer, bytes, "what /dev/shm has free"},
    {"host.memlock_bytes", integer, bytes, "the soft RLIMIT_MEMLOCK (locked memory: RDMA, pinned buffers); missing when unlimited"},
    {"host.memlock_unlimited", boolean, none, "RLIMIT_MEMLOCK is unlimited"},
    {"host.nofile", integer, count, "the soft limit on open files"},
    {"host.core_bytes", integer, bytes, "the soft RLIMIT_CORE (0: no core dumps); missing when unlimited"},
    {"host.core_pattern", string, none, "kernel.core_pattern: where core dumps go (a leading | pipes them to a program)"},
    {"host.core_piped", boolean, none, "core dumps go to a program (systemd-coredump, apport), not a file in the working directory"},
    {"host.dmesg_restrict", integer, none, "kernel.dmesg_restrict (1: only privileged users read the kernel log)"},
    {"host.kernel_log_readable", boolean, none, "ftdiag could open the kernel log (/dev/kmsg) here"},
    {"host.as_root", boolean, none, "the settings were read as root"},
    {"host.oom_daemons", string, none, "userspace OOM killers running now (systemd-oomd, earlyoom), or none"},

    // What a job left beside it: its configurations and checkpoint folders
    // (the configs and checkpoints collectors; docs/evidence.md).
    {"config.zero_stage", integer, none, "DeepSpeed's ZeRO stage (0-3), from the DeepSpeed config, accelerate's deepspeed_config or accelerate launch --zero_stage"},
    {"config.offload_optimizer", string, none, "where ZeRO keeps the optimizer states: cpu, nvme or none (none also when a whole DeepSpeed config has no offload_optimizer)"},
    {"config.offload_param", string, none, "where ZeRO-3 keeps the parameters: cpu, nvme or none"},
    {"config.gather_16bit_weights_on_save", boolean, none, "ZeRO-3 gathers the whole 16-bit model on one rank to save it (stage3_gather_16bit_weights_on_model_save, accelerate's zero3_save_16bit_model)"},
    {"config.precision", string, none, "the training precision the configs set: bf16, fp16 or fp32"},
    {"config.finetuning", string, none, "what is trained: full, lora, qlora (LoRA on a 4- or 8-bit model) or freeze"},
    {"config.gpus_per_node", integer, count, "GPUs (processes) per node the launch asked for (--num_gpus, --nproc_per_node, --include, a hostfile's slots, accelerate's num_processes per machine)"},
    {"config.nodes", integer, count, "nodes the launch asked for (--num_nodes, --nnodes, num_machines, a hostfile's hosts)"},
    {"config.save_steps", integer, none, "steps between checkpoint saves (--save_steps, a recipe's save_steps, trainer_state.json)"},
    {"config.lora_rank", integer, none, "LoRA's rank (lora_rank, lora_r, an adapter's r)"},
    {"config.micro_batch", integer, count, "sequences per GPU per step (per_device_train_batch_size, micro_batch_size, train_micro_batch_size_per_gpu)"},
    {"config.sequence_length", integer, none, "tokens per sequence the recipe allows (cutoff_len, sequence_len, max_seq_length)"},
    {"config.save_safetensors", boolean, none, "the Trainer writes weights as safetensors (save_safetensors; its default is true)"},
    {"config.gradient_checkpointing", boolean, none, "activations are recomputed in the backward (gradient_checkpointing; LLaMA-Factory's default unless disable_gradient_checkpointing)"},
    {"config.model", string, none, "the model trained: its name or path (--model_name_or_path, base_model)"},
    {"config.sources", string, none, "the configurations read: kind (file), ..."},
    // What the memory model (src/estimate/) predicts for the configs' setup.
    {"estimate.parameters", integer, count, "parameters of the model trained (its state dict): from the weights' safetensors headers, config.json, or the size its name states"},
    {"estimate.parameters_source", string, none, "where that count came from"},
    {"estimate.trainable_parameters", integer, count, "of them, the ones trained (LoRA: the adapters)"},
    {"estimate.rank_baseline_bytes", integer, bytes, "host memory one rank holds before a save, as the estimate takes it: measured when ftdiag watched the job (the job's memory as the save began, else after start-up, per rank; CPU ranks' states included), else assumed (4 GB, GPU ranks' host memory besides their states)"},
    {"estimate.rank_baseline_measured", boolean, none, "that baseline was measured, not assumed"},
    {"estimate.setup", string, none, "the training setup estimated: ZeRO stage, offload, ranks per node, precision, what is trained"},
    {"estimate.save_peak_bytes", integer, bytes, "host memory one node needs at a checkpoint save, predicted (docs/memory-model.md)"},
    {"estimate.save_peak_formula", string, none, "how that prediction is made up"},
    {"estimate.save_largest_phase", string, none, "the part of the save that makes the peak (every rank's state-dict copy, rank 0's gather, the optimizer partitions)"},
    {"estimate.host_steady_bytes", integer, bytes, "host memory one node needs while training (the ranks' baseline, offloaded states), predicted"},
    {"estimate.host_peak_bytes", integer, bytes, "the most host memory one node needs while training and saving, predicted"},
    {"estimate.host_peak_when", string, none, "when that peak comes: DeepSpeed init, checkpoint save or steady"},
    {"estimate.gpu_model_states_bytes", integer, bytes, "weights, gradients and optimizer states per GPU, predicted (the ZeRO paper's accounting)"},
    {"estimate.gpu_activations_bytes", integer, bytes, "activations per GPU for the micro-batch and sequence length (Korthikanti et al. 2022), predicted"},
    {"estimate.gpu_total_bytes", integer, bytes, "everything per GPU: model states, buffers, activations, CUDA context, predicted"},
    {"estimate.host_capacity_bytes", integer, bytes, "the memory the node gives the job: its RAM, or its cgroup's limit when lower"},
    {"estimate.host_capacity_source", string, none, "which of them that is"},
    {"estimate.save_peak_ratio", number, ratio, "predicted save peak / that memory"},
    {"estimate.host_peak_ratio", number, ratio, "predicted host peak / that memory"},
    {"estimate.zero3_save_peak_bytes", integer, bytes, "the save peak ZeRO-3 with the 16-bit gather would need instead (for ZeRO-0/1/2 setups)"},
    {"estimate.save_fits_ranks_per_node", integer, count, "the most ranks per node whose save would fit that memory with a 15% margin, at this stage"},
    {"trainer.global_step", integer, none, "the step the furthest trainer_state.json reached (the last checkpoint the Trainer finished writing its state for)"},
    {"trainer.max_steps", integer, none, "the steps the run was to take, from that trainer_state.json"},
    {"trainer.next_save_step", integer, none, "the first multiple of config.save_steps after the last whole checkpoint: the save the job was heading for"},
    {"checkpoint.count", integer, count, "checkpoint folders found (checkpoint-N, tmp-checkpoint-N, global_stepN)"},
    {"checkpoint.last_step", integer, none, "the highest step of any checkpoint folder, whole or not"},
    {"checkpoint.last_complete_step", integer, none, "the highest step of a whole checkpoint folder; missing when none is whole"},
    {"checkpoint.incomplete", boolean, none, "a checkpoint folder is not whole (a tmp-checkpoint, a file missing, empty or truncated): a save was cut short"},
    {"checkpoint.incomplete_path", string, none, "the newest such folder"},
    {"checkpoint.incomplete_reason", string, none, "why it is not whole (\"model.safetensors is truncated: ...\")"},

    // How the job was watched.
    {"watch.netlink", boolean, none, "the netlink process connector saw the tree's forks and exits"},
});

}  // namespace

std::span<const FactSpec> fact_registry() { return kFacts; }

const FactSpec* find_fact(std::string_view name) {
  auto it = std::find_if(kFacts.begin(), kFacts.end(), [&](const FactSpec& f) { return f.name == name; });
  return it == kFacts.end() ? nullptr : &*it;
}

}  // namespace ftdiag::facts
