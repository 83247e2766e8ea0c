// rules/log-events.json against the wordings read from the launchers',
// frameworks' and runtimes' own sources (docs/log-events.md, "Sources and
// versions"): each release's wording gives its kind and fields, in fixture
// files named by source and version, whatever prefix a logger or a launcher
// put before it; and the near misses of each wording give nothing.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "line_event_testing.h"

namespace line_event_sources {

using ftdiag::parse::testing::describe;
using ftdiag::parse::testing::events_of_log;
using ftdiag::parse::testing::project_table;

std::string event_of_line(std::string_view line) {
  const auto event = project_table().match(line);
  return event ? describe(*event) : "(none)";
}

// Prefixes these programs' lines carry in real consoles: Python logging's
// default, torch 2.x's glog and rank prefixes, Ray's prefixes for a worker's
// output and for the raylet's errors, NCCL's "[E ProcessGroupNCCL.cpp:N]".
void check_with_prefixes(const std::string& line, const std::string& expected) {
  for (const std::string prefix : {"", "WARNING:torch.distributed.elastic.multiprocessing.api:",
                                   "W0912 11:02:40.552000 139882 torch/distributed/elastic/multiprocessing/api.py:858] ",
                                   "[rank1]:[E1003 18:37:01.833575187 ProcessGroupNCCL.cpp:1664] ", "(WorkerDict pid=3490362) ",
                                   "(raylet) ", "[E ProcessGroupNCCL.cpp:566] ", "[default0]:"}) {
    const std::string text = prefix + line;
    CAPTURE(text);
    CHECK(event_of_line(text) == expected);
  }
}

void check_no_event(std::string_view line) {
  CAPTURE(line);
  CHECK(event_of_line(line) == "(none)");
}

}  // namespace line_event_sources

using namespace line_event_sources;

TEST_CASE("line events sources: torch.distributed.elastic, 1.9 to 2.x") {
  CHECK(events_of_log("torchrun-torch1.9-kill.txt") == std::vector<std::string>{
            "6: rank-failed torchrun pid=48121 signal=9 exit_code=-9 rank=1 binary=/opt/conda/bin/python3",
            "18: rank-failed torchrun pid=48121 signal=9 exit_code=-9",
            "20: rank-failed torchrun pid=48121 signal=9",
            "26: rank-failed torchrun pid=48120 exit_code=1",
        });
  CHECK(events_of_log("torchrun-torch1.13-fn-entrypoint.txt") == std::vector<std::string>{
            "1: launcher-teardown torchrun pid=7712 signal=15",
            "2: launcher-teardown torchrun pid=7712 signal=9 first_signal=Signals.SIGTERM",
            "3: rank-failed torchrun pid=7713 exit_code=1 rank=1",
            "4: rank-failed torchrun global_rank=1",
            "5: launcher-signalled torchrun signal=15",
        });
  CHECK(events_of_log("torchrun-torch2.4-fn-entrypoint.txt") == std::vector<std::string>{
            "3: launcher-teardown torchrun pid=139901 signal=15",
            "4: launcher-teardown torchrun pid=139902 signal=15",
            "5: rank-failed torchrun pid=139900 signal=6 exit_code=-6 rank=0",
            "6: rank-failed torchrun global_rank=0",
            "7: launcher-signalled torchrun signal=15",
            "8: launcher-signalled torchrun signal=15",
            "9: launcher-teardown torchrun pid=140230 signal=15",
        });
  check_with_prefixes("Closing process 139901 via signal SIGTERM", "launcher-teardown torchrun pid=139901 signal=15");
  check_with_prefixes("Got termination signal: Signals.SIGINT", "launcher-signalled torchrun signal=2");
  check_with_prefixes("  exitcode: -11 (pid: 3304209)", "rank-failed torchrun pid=3304209 signal=11 exit_code=-11");
  // The block lists failed ranks only: an exit code 0 is no failure. The rank line names no pid.
  check_no_event("  exitcode: 0 (pid: 12)");
  check_no_event("  rank: 1 (local_rank: 1)");
  check_no_event("  msg: \"Process failed with exitcode 1\"");
  check_no_event("INFO:torch.distributed.elastic.agent.server.api:[default] Worker group FAILED. 3/3 attempts left; will restart worker group");
  check_no_event("I0912 09:14:02.130000 139882 torch/distributed/elastic/multiprocessing/api.py:706] Registered signal handler for SIGTERM");
  check_no_event("Closing process group and releasing resources");
}

TEST_CASE("line events sources: torch.multiprocessing spawn") {
  CHECK(events_of_log("torch-multiprocessing-spawn.txt") == std::vector<std::string>{
            "2: launcher-teardown pytorch pid=20140 signal=15",
            "3: launcher-teardown pytorch pid=20141 signal=9 first_signal=SIGTERM",
            "9: rank-failed pytorch signal=9 rank=1",
            "10: rank-failed pytorch signal=11 rank=3",
            "11: rank-failed pytorch exit_code=1 rank=0",
            "14: rank-failed pytorch rank=2",
            "18: cuda-illegal-address cuda",
            "19: rank-failed pytorch rank=1 signal=<Unknown signal 77>",
        });
  check_with_prefixes("torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGABRT",
                      "rank-failed pytorch signal=6 rank=0");
  check_no_event("Terminating process group on exit");
  check_no_event("Program terminated with exit code 1");
}

TEST_CASE("line events sources: DataLoader and the DeepSpeed launcher before 0.5.8") {
  CHECK(events_of_log("dataloader-torch2.1-worker-exit.txt") == std::vector<std::string>{
            "3: worker-died pytorch-dataloader pid=30877 exit_code=1",
            "7: worker-died pytorch-dataloader pid=30877",
        });
  CHECK(events_of_log("deepspeed-0.5-launcher.txt") == std::vector<std::string>{
            "2: launcher-teardown deepspeed pid=28114",
            "3: launcher-teardown deepspeed pid=28115",
            "4: rank-failed deepspeed signal=9 rank=1",
            "5: rank-failed deepspeed exit_code=1 rank=0",
        });
  // accelerate's one-process launcher names no rank: the plain stdlib reading.
  CHECK(event_of_line("subprocess.CalledProcessError: Command '['/opt/conda/bin/python', 'train.py', '--lr', '1e-5']' died with <Signals.SIGKILL: 9>.") ==
        "rank-failed python signal=9");
  check_no_event("DataLoader worker (pid 30877) exited normally");
  // CPython's atexit (Modules/atexitmodule.c): an exit function raised at the interpreter's exit.
  CHECK(event_of_line("Error in atexit._run_exitfuncs:") == "interpreter-exit python");
  check_no_event("registered with atexit._run_exitfuncs");
  check_no_event("[2021-10-04 13:40:11,502] [INFO] [launch.py:166:main] Process 28114 exits successfully.");
}

TEST_CASE("line events sources: ProcessGroupNCCL from torch 1.8 to 2.7") {
  CHECK(events_of_log("nccl-torch1.9-timeout.txt") == std::vector<std::string>{
            "1: nccl-error nccl rank=1 op=ALLREDUCE ran_ms=1800310 timeout_ms=1800000 work=WorkNCCL(OpType=ALLREDUCE, TensorShape=[25557032], Timeout(ms)=1800000)",
            "2: nccl-error nccl",
            "3: nccl-error nccl rank=3 op=BROADCAST ran_ms=600412 timeout_ms=600000 work=WorkNCCL(OpType=BROADCAST, Timeout(ms)=600000)",
            "4: nccl-error nccl message=Socket Timeout",
        });
  CHECK(events_of_log("nccl-torch2.4-watchdog.txt") == std::vector<std::string>{
            "1: nccl-error nccl rank=1 op=ALLREDUCE ran_ms=1800017 seq=6463 timeout_ms=1800000 work=WorkNCCL(SeqNum=6463, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000)",
            "2: nccl-error nccl last_completed=6462 last_enqueued=6463 seq=6463",
            "3: nccl-error nccl last_completed=6462 last_enqueued=6463 seq=6463",
            "4: nccl-error nccl",
            "5: nccl-error nccl",
            "6: nccl-error nccl rank=1 op=ALLREDUCE ran_ms=1800017 seq=6463 timeout_ms=1800000 work=WorkNCCL(SeqNum=6463, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000)",
            "7: nccl-error nccl error=remote process exited or there was a network error nccl_version=2.20.5",
            "8: nccl-error nccl",
            "9: nccl-error nccl heartbeat_timeout_s=480",
            "10: nccl-error nccl error=ProcessGroupNCCL watchdog hang",
            "11: nccl-error nccl error=collective timeout or exception",
            "12: nccl-error nccl rank=6 error=Socket Timeout",
            "13: nccl-error nccl rank=3 error=wait timeout after 600000ms",
        });
  CHECK(events_of_log("nccl-torch2.7-watchdog.txt") == std::vector<std::string>{
            "1: nccl-error nccl rank=2 op=_REDUCE_SCATTER_BASE ran_ms=600038 seq=500045 timeout_ms=600000 work=WorkNCCL(SeqNum=500045, OpType=_REDUCE_SCATTER_BASE, NumelIn=67108864, NumelOut=8388608, Timeout(ms)=600000)",
            "2: nccl-error nccl last_completed=500044 last_enqueued=500047 seq=500045",
            "3: nccl-error nccl last_completed=500045 last_enqueued=500047 seq=500046",
            "4: nccl-error nccl rank=2 op=_REDUCE_SCATTER_BASE ran_ms=600038 seq=500045 timeout_ms=600000 work=WorkNCCL(SeqNum=500045, OpType=_REDUCE_SCATTER_BASE, NumelIn=67108864, NumelOut=8388608, Timeout(ms)=600000)",
            "5: nccl-error nccl message=Socket Timeout",
            "6: cpp-terminate cpp-runtime signal=6 exception=c10::DistBackendError",
        });
  // Blocking wait (WorkNCCL::synchronizeInternal): 2.0-2.1, 2.2-2.4 and 2.5+ wordings.
  CHECK(event_of_line("[Rank 3] Work WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1000) timed out in blocking wait (NCCL_BLOCKING_WAIT=1).") ==
        "nccl-error nccl rank=3 op=ALLREDUCE seq=5 timeout_ms=1000 work=WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1000)");
  CHECK(event_of_line("[PG 0 (default_pg) Rank 3] Work WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1000) timed out in blocking wait (TORCH_NCCL_BLOCKING_WAIT=1).") ==
        "nccl-error nccl rank=3 op=ALLREDUCE seq=5 timeout_ms=1000 work=WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1000)");
  check_with_prefixes("[Rank 6] Work WorkNCCL(SeqNum=43379, OpType=_ALLGATHER_BASE, NumelIn=8069120, NumelOut=64552960, Timeout(ms)=600000) timed out in blocking wait.",
                      "nccl-error nccl rank=6 op=_ALLGATHER_BASE seq=43379 timeout_ms=600000 work=WorkNCCL(SeqNum=43379, OpType=_ALLGATHER_BASE, NumelIn=8069120, NumelOut=64552960, Timeout(ms)=600000)");
  // The watchdog's line cut short where a viewer or a form cut it.
  check_with_prefixes("[Rank 6] Watchdog caught collective", "nccl-error nccl rank=6");
  check_no_event("Watchdog caught collectives are logged below");
  check_with_prefixes("[PG ID 0 PG GUID 0(default_pg) Rank 2] Heartbeat monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()=0",
                      "nccl-error nccl");
  // The watchdog's thread ending on a CUDA error is that CUDA error.
  CHECK(event_of_line("[PG ID 0 PG GUID 0(default_pg) Rank 0] Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered") ==
        "cuda-illegal-address cuda");
  check_no_event("[PG ID 0 PG GUID 0(default_pg) Rank 0] ProcessGroupNCCL initialization options: size: 8, global rank: 0, TIMEOUT(ms): 600000, TORCH_NCCL_ENABLE_MONITORING: 1, TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC: 480");
  check_no_event("[PG ID 0 PG GUID 0(default_pg) Rank 0] NCCL watchdog thread started!");
  check_no_event("node1:1234:1234 [0] NCCL INFO comm 0x55d5 rank 0 nranks 8 cudaDev 0 busId 1000 - Init COMPLETE");
}

TEST_CASE("line events sources: Ray workers and actors, as verl and OpenRLHF print them") {
  CHECK(events_of_log("ray-2.x-verl-worker-died.txt") == std::vector<std::string>{
            "3: worker-died ray pid=320330 exit_detail=Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors. exit_type=SYSTEM_ERROR",
            "4: worker-died ray pid=26103 exit_detail=Task was killed due to the node running low on memory. exit_type=NODE_OUT_OF_MEMORY",
            "5: worker-died ray task=ffffffffffffffff45b95b1c0100",
            "9: worker-died ray",
            "16: worker-died ray exit_detail=Worker exits unexpectedly. Worker exits with an exit code None. The worker may have exceeded K8s pod memory limits. exit_type=SYSTEM_ERROR",
            "17: worker-died ray",
            "18: oomd-kill ray signal=9",
            // Ended by SIGTERM: Ray's worker exits from its SIGTERM handler and says so.
            "19: worker-died ray pid=870287 signal=15 exit_detail=Worker exits unexpectedly by a signal. SystemExit is raised (sys.exit is called). Exit code: 1. exit_type=SYSTEM_ERROR",
        });
  check_no_event("(WorkerDict pid=26103) Actor use_remove_padding=True");
  check_no_event("2024-06-02 07:00:40,101\tINFO worker.py:1673 -- Started a local Ray instance.");
  check_no_event("The actor is alive and restarting");
}

TEST_CASE("line events sources: glibc aborts, gdb and lldb, CUDA errors through torch") {
  CHECK(events_of_log("glibc-2.27-2.42-aborts.txt") == std::vector<std::string>{
            "1: memory-corruption glibc signal=6 error=(old_top == initial_top (av) && old_size == 0) || ((unsigned long) (old_size) >= MINSIZE && prev_inuse (old_top) && ((unsigned long) old_end & (pagesize - 1)) == 0) function=sysmalloc program=python3",
            "2: memory-corruption glibc signal=6 error=(old_top == initial_top (av) && old_size == 0) || ((unsigned long) (old_size) >= MINSIZE && prev_inuse (old_top) && ((unsigned long) old_end & (pagesize - 1)) == 0) function=sysmalloc",
            "3: memory-corruption glibc signal=6 error=(old_top == initial_top (av) && old_size == 0) || ((unsigned long) (old_size) >= MINSIZE && prev_inuse (old_top) && ((unsigned long) old_end & (pagesize - 1)) == 0) function=sysmalloc",
            "4: memory-corruption glibc signal=6 error=unaligned tcache chunk detected function=tcache_thread_shutdown",
            "5: memory-corruption glibc signal=6 error=chunks in smallbin corrupted function=free",
            "6: memory-corruption glibc signal=6 error=chunk size mismatch in fastbin function=malloc",
            "7: memory-corruption glibc signal=6 error=invalid fastbin entry function=free",
            "8: memory-corruption glibc signal=6 error=longjmp causes uninitialized stack frame",
            "9: memory-corruption glibc signal=6 error=stack smashing",
        });
  CHECK(events_of_log("gdb-lldb-signals.txt") == std::vector<std::string>{
            "2: native-crash gdb signal=11 name=python3 thread=1",
            "4: native-crash gdb signal=6 name=pt_autograd_0 thread=12.3",
            "5: native-crash gdb signal=7",
            "7: native-crash gdb signal=9",
            "8: native-crash lldb signal=11 reason=invalid address (fault address: 0x0)",
            "9: native-crash lldb signal=6",
        });
  CHECK(events_of_log("cuda-errors-torch.txt") == std::vector<std::string>{
            "1: cuda-oom pytorch",
            "2: cuda-error cuda error=an illegal instruction was encountered",
            "3: cuda-error cuda error=CUDNN_STATUS_EXECUTION_FAILED",
            "4: cuda-error cuda code=4 error=unspecified launch failure",
            "5: cuda-device-assert cuda",
            "6: cuda-error cuda error=an illegal instruction was encountered",
        });
  check_with_prefixes("free(): chunks in smallbin corrupted", "memory-corruption glibc signal=6 error=chunks in smallbin corrupted function=free");
  // gdb's own message when it has no source for a frame in malloc.c.
  check_no_event("malloc.c: No such file or directory.");
  check_no_event("_int_malloc (av=0x7ffff7e19c80, bytes=64) at malloc.c:4302");
  check_no_event("Thread 3 exited, returned 0");
  check_no_event("* thread #1, name = 'python3', stop reason = breakpoint 1.1");
  check_no_event("torch.backends.cudnn.enabled = True, cuDNN version 8902");
}

TEST_CASE("line events sources: NCCL's shared-memory segments and InfiniBand completions") {
  // The wordings of include/shm.h (before 2.12), misc/shmutils.cc (since) and
  // transport/net_ib.cc (before and since 2.19's status= form).
  CHECK(events_of_log("nccl-2.x-shm-and-ib.txt") == std::vector<std::string>{
            "1: shm-error nccl error=No space left on device",
            "3: shm-error nccl segment=nccl-shm-recv-1462445a6f01cbfc-1-2-3 size=9637888",
            "4: shm-error nccl segment=nccl-Zb5a2K size=33030148",
            "5: nccl-error nccl error=12 peer=10.0.0.12<39217>",
            "6: nccl-error nccl error=12 peer=10.0.0.12<39217>",
        });
}

TEST_CASE("line events sources: zsh's words for a death, Ray's memory monitor, ENOMEM from a system call") {
  CHECK(events_of_log("zsh-ray-enomem.txt") == std::vector<std::string>{
            "1: shell-reported-death zsh signal=9 command=python train.py --config configs/sft.yaml",
            "2: shell-reported-death zsh signal=11 command=python finetune.py",
            "3: shell-reported-death zsh signal=11 command=python finetune.py core=core dumped",
            "4: shell-reported-death zsh pid=4242 signal=9 command=python train.py",
            "5: oomd-kill ray signal=9",
            "6: oomd-kill ray pid=827684 signal=9 fraction=0.956471 memory_total=400.00GB memory_used=382.59GB threshold=0.95 used=43.35GB",
            "7: host-memory-error python exception=OSError",
            "9: oomd-kill ray pid=4503 signal=9 node_ip=10.1.180.84",
            "10: oomd-kill ray signal=9 count=10 node_ip=10.0.62.231",
        });
}
