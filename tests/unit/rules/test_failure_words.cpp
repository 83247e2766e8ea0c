// The failure words (rules/failure-words.json): what each class of words
// reads in lines no recogniser knows, in any case, and what it must leave
// alone (advice, URLs, a GPU kernel's own shared memory); and the table's
// refusals of what it cannot use.
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "evidence/failure_words.h"
#include "rule_text.h"

using namespace ftdiag;
using evidence::FailureWords;
using ftdiag::rules::testing::project_rules_dir;

namespace {

const FailureWords& project_words() {
  static const FailureWords words = [] {
    auto table = FailureWords::load(project_rules_dir() / "failure-words.json");
    REQUIRE_MESSAGE(table.has_value(), (table ? std::string() : table.missing().detail));
    return std::move(table.value());
  }();
  return words;
}

std::string word_of(std::string_view line) {
  const auto word = project_words().classify(line);
  return word ? std::string(*word) : "(none)";
}

std::string refusal(std::string_view text) {
  auto table = FailureWords::parse(text, "words-test.json");
  REQUIRE_FALSE(table);
  CHECK(table.missing().reason == MissingReason::unparseable);
  return table.missing().detail;
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("failure words: the project's table loads, every word with what it means") {
  const auto& words = project_words().words();
  REQUIRE(words.size() >= 10);
  for (const auto& word : words) {
    CHECK_FALSE(word.name.empty());
    CHECK_FALSE(word.what.empty());
  }
}

TEST_CASE("failure words: memory, GPU or host, whatever the case a line is written in") {
  CHECK(word_of("RuntimeError: The NVIDIA driver on your system is too old") == "cuda-driver");
  CHECK(word_of("HIP out of memory. Tried to allocate 2.00 GiB") == "gpu-memory");
  // torch's own message ends with advice that names no OOM: still the failure.
  CHECK(word_of("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 388.00 MiB (GPU 0; 39.43 GiB total capacity) "
                "If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.") == "gpu-memory");
  CHECK(word_of("ERROR: device ran OUT OF MEMORY while compiling the graph") == "gpu-memory");
  CHECK(word_of("tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor") == "gpu-memory");
  CHECK(word_of("worker 3: Cannot allocate memory") == "host-memory");
  CHECK(word_of("terminate called after throwing an instance of 'std::bad_alloc'") == "host-memory");
  CHECK(word_of("The system ran out of memory while tokenizing") == "host-memory");
  CHECK(word_of("host OUT-OF-MEMORY: 63.9 of 64 GB used") == "host-memory");
  // A line that names the host's memory is never a GPU's.
  CHECK(word_of("CUDA graph capture: system memory (RAM) is out of memory") == "host-memory");
  CHECK(word_of("Container exceeded its memory limit and was restarted") == "container-memory");
  CHECK(word_of("pod trainer-0 was OOMKilled") == "container-memory");
}

TEST_CASE("failure words: crashes, stacks, shared memory, links and stops") {
  CHECK(word_of("Fatal Python error: Segmentation fault") == "crash");
  CHECK(word_of("bash: line 1: 4242 Illegal instruction (core dumped) python train.py") == "crash");
  CHECK(word_of("(gdb) bt") == "crash");
  CHECK(word_of("Kernel Restarting: The kernel for train.ipynb appears to have died. It will restart automatically.") == "died-silently");
  CHECK(word_of("[I 10:00:01.123 NotebookApp] KernelRestarter: restarting kernel (1/5), keep random ports") == "died-silently");
  CHECK(word_of("The Kernel crashed while executing code in the current cell or a previous cell.") == "died-silently");
  CHECK(word_of("ERROR: Unexpected bus error encountered in worker") == "shared-memory");
  CHECK(word_of("OSError: [Errno 28] No space left on device: '/dev/shm/torch_123'") == "shared-memory");
  CHECK(word_of("Stack Overflow in thread main") == "stack-overflow");
  CHECK(word_of("RecursionError: maximum recursion depth exceeded") == "stack-overflow");
  CHECK(word_of("undefined symbol: _ZN3c104cuda9SetDeviceEi") == "library-abi");
  CHECK(word_of("The installed version of bitsandbytes was compiled without GPU support.") == "library-abi");
  CHECK(word_of("[rank3] NCCL watchdog thread terminated with exception") == "nccl");
  CHECK(word_of("NET/IB : ibv_modify_qp failed with error 110") == "nccl");
  CHECK(word_of("Xid 79, pid=1234, GPU has fallen off the bus.") == "gpu-hardware");
  CHECK(word_of("slurmstepd: error: *** JOB 42 CANCELLED AT 2024-05-01T10:00:00 DUE TO TIME LIMIT ***") == "stopped");
  CHECK(word_of("Your spot instance was reclaimed (interruption notice)") == "stopped");
  // NCCL's INFO level reports its probes and goes on; its trace of a failed call is an error.
  CHECK(word_of("c39f:4773:4907 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or "
                "directory No plugin found (libnccl-net.so), using internal implementation") == "(none)");
  CHECK(word_of("node1:4774:4835 [1] NCCL INFO misc/socket.cc:568 -> 2") == "nccl");
  CHECK(word_of("node1:4774:4835 [1] NCCL INFO transport/net.cc:1021 -> 7") == "(none)");
  CHECK(word_of("Job cancelled because its time value was exceeded") == "stopped");
  // rdma-core's mlx5 provider and NCCL on a failed InfiniBand transfer; cpm_kernels' unloaded libraries.
  CHECK(word_of("(LLMRayActor pid=90738, ip=172.19.24.110) mlx5: host_unknown: got completion with error:") == "nccl");
  // NCCL's WARN level: where it gives up on a call and returns an error.
  CHECK(word_of("lrdn0001:123:456 [0] graph/topo.h:230 NCCL WARN Could not find NET with id 0") == "nccl");
  CHECK(word_of("node3:1234:1290 [2] NCCL WARN NET/IB : Got completion with error 12, opcode 0, len 0, vendor err 129") == "nccl");
  CHECK(word_of("RuntimeError: Library cublasLt is not initialized") == "library-abi");
  CHECK(word_of("RuntimeError: Library cuda is not initialized") == "cuda-driver");
  CHECK(word_of("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`") != "library-abi");
}

TEST_CASE("failure words: advice, links and a GPU kernel's own shared memory are not failures") {
  CHECK(word_of("Tip: set max_split_size_mb to avoid out of memory errors") == "(none)");
  CHECK(word_of("Lowering the batch size may lead to fewer OOM errors") == "(none)");
  CHECK(word_of("see https://stackoverflow.com/questions/123 for details") == "(none)");
  CHECK(word_of("triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 98304") == "(none)");
  CHECK(word_of("Epoch 3: 100%|##########| 1000/1000 [10:00<00:00, loss=0.31]") == "(none)");
  CHECK(word_of("Saving model checkpoint to /out/checkpoint-500") == "(none)");
  CHECK(word_of("") == "(none)");
  // A container's launch command sizes /dev/shm; a message that reports it too small is read,
  // its advice included.
  CHECK(word_of("docker run --rm --gpus=all --shm-size=10g --ipc=host nvcr.io/nvidia/pytorch:24.04-py3 bash") == "(none)");
  CHECK(word_of("$ sudo docker container run --shm-size 1g image python train.py") == "(none)");
  CHECK(word_of("    shm_size: '16gb'") == "(none)");
  CHECK(word_of("WARNING: The object store is using /tmp instead of /dev/shm because /dev/shm has only 46964736 bytes "
                "available. ... you can increase /dev/shm size by passing '--shm-size=7.67gb' to 'docker run'") == "shared-memory");
}

TEST_CASE("failure words: a table the reader cannot use is refused with where and why") {
  CHECK(contains(refusal("{\"words\": 3}"), "expected {\"words\": [...]}"));
  CHECK(contains(refusal("{\"kind\": \"phases\", \"words\": []}"), "kind is \"failure-words\""));
  CHECK(contains(refusal("{\"words\": [], \"extra\": 1}"), "unknown key \"extra\""));
  CHECK(contains(refusal("{\"words\": [{\"word\": \"a\", \"patterns\": [\"x\"]}]}"), "/words/0: needs"));
  CHECK(contains(refusal("{\"words\": [{\"word\": \"a\", \"what\": \"w\", \"patterns\": [\"(\"]}]}"), "/words/0/patterns/0: bad regular expression"));
  CHECK(contains(refusal("{\"words\": [{\"word\": \"a\", \"what\": \"w\", \"patterns\": []}]}"), "at least one pattern"));
  CHECK(contains(refusal("{\"words\": [{\"word\": \"a\", \"what\": \"w\", \"patterns\": [\"x\"], \"since\": 1}]}"), "unknown key \"since\""));
  CHECK(contains(refusal("{\"words\": [{\"word\": \"a\", \"what\": \"w\", \"patterns\": [\"x\"]}, "
                         "{\"word\": \"a\", \"what\": \"w\", \"patterns\": [\"y\"]}]}"),
                 "listed twice"));
  CHECK(contains(refusal("{\"words\": [{\"word\": \"a\", \"what\": \"w\", \"patterns\": [\"\"]}]}"), "a pattern of 1 to"));
  CHECK(contains(refusal("{\"words\": [ // cut"), "words-test.json"));
}

TEST_CASE("failure words: the first word in table order wins, and `unless` takes a line from its word") {
  auto table = FailureWords::parse(R"({"kind": "failure-words", "words": [
      {"word": "first", "what": "w", "patterns": ["alpha"], "unless": ["not alpha"]},
      {"word": "second", "what": "w", "patterns": ["alpha|beta"]}]})",
                                   "order.json");
  REQUIRE(table);
  CHECK(table->classify("ALPHA and beta") == std::optional<std::string_view>("first"));
  CHECK(table->classify("not alpha") == std::optional<std::string_view>("second"));
  CHECK(table->classify("gamma") == std::nullopt);
}
