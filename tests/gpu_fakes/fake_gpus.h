/* What the fake libcuda.so.1 and libnvidia-ml.so.1 share: the same fake GPUs,
 * seen through both, configured by environment variables read at each call
 * (so one test process can run the GPU probe with different settings):
 *
 *   FAKE_GPU_COUNT            physical GPUs (default 1, at most 16)
 *   FAKE_GPU_NAME             "NVIDIA H100 80GB HBM3"
 *   FAKE_GPU_CC               compute capability, "9.0"
 *   FAKE_GPU_MEMORY_TOTAL     bytes per GPU (default 80 GiB)
 *   FAKE_GPU_MEMORY_USED      bytes per GPU (default 1 GiB)
 *   FAKE_GPU_PROCESSES        "pid:bytes,pid:bytes", on GPU 0 (default none)
 *   FAKE_GPU_PROCESSES_FILE   a file holding the same, read at each call: a
 *                             job under test names its own pid there
 *   FAKE_GPU_ECC_UNCORRECTED  a count, or "unsupported" (default 0)
 *   FAKE_GPU_ECC_CORRECTED    a count (default 0)
 *
 * GPU i has a UUID made of bytes 0x10*k+i and sits at PCI bus 0x3B+i. Header
 * only: each fake library compiles its own copy. */
#ifndef FTDIAG_FAKE_GPUS_H
#define FTDIAG_FAKE_GPUS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_MAX_GPUS 16
#define FAKE_MAX_PROCESSES 64

static inline const char* fake_env(const char* name, const char* fallback) {
  const char* value = getenv(name);
  return value && *value ? value : fallback;
}

static inline unsigned long long fake_env_number(const char* name, unsigned long long fallback) {
  const char* value = getenv(name);
  if (!value || !*value) return fallback;
  return strtoull(value, NULL, 10);
}

static inline int fake_gpu_count(void) {
  unsigned long long count = fake_env_number("FAKE_GPU_COUNT", 1);
  return count > FAKE_MAX_GPUS ? FAKE_MAX_GPUS : (int)count;
}

static inline void fake_gpu_uuid(int gpu, unsigned char bytes[16]) {
  for (int k = 0; k < 16; ++k) bytes[k] = (unsigned char)(0x10 * k + gpu);
}

static inline int fake_gpu_bus(int gpu) { return 0x3B + gpu; }

struct fake_process {
  unsigned pid;
  unsigned long long bytes;
};

/* FAKE_GPU_PROCESSES parsed; GPUs other than 0 have none. */
static inline int fake_gpu_processes(int gpu, struct fake_process out[FAKE_MAX_PROCESSES]) {
  const char* text = fake_env("FAKE_GPU_PROCESSES", "");
  static char from_file[4096];
  const char* file = fake_env("FAKE_GPU_PROCESSES_FILE", "");
  int count = 0;
  if (gpu != 0) return 0;
  if (*file) {
    FILE* f = fopen(file, "r");
    size_t n = f ? fread(from_file, 1, sizeof from_file - 1, f) : 0;
    if (f) fclose(f);
    from_file[n] = 0;
    text = from_file;
  }
  while (*text && count < FAKE_MAX_PROCESSES) {
    char* end = NULL;
    out[count].pid = (unsigned)strtoul(text, &end, 10);
    if (*end != ':') break;
    out[count].bytes = strtoull(end + 1, &end, 10);
    ++count;
    if (*end != ',') break;
    text = end + 1;
  }
  return count;
}

#endif
