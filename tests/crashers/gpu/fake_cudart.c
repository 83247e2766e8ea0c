/* A fake CUDA runtime, built twice (tests/CMakeLists.txt): as
 * gpu/cuda-11/libcudart.so.11.0 (FAKE_CUDART_VERSION 11080) and as
 * gpu/cuda-12/libcudart.so.12 (FAKE_CUDART_VERSION 12080), each exporting the
 * real entry points with the real signatures, so that a process can map two
 * versions of the runtime at once as a real job does (a torch extension or a
 * wheel bundling its own libcudart next to torch's). No GPU is touched.
 *
 * The 12 build crashes in cudaGetDevice as code built against the other
 * runtime would: it reads its per-thread context, which that code never
 * created, through a NULL pointer, in cudart_context_device.
 *
 * Built with -g -O0 and never sanitized, like the crashers. */
#include <stddef.h>

#ifndef FAKE_CUDART_VERSION
#error "FAKE_CUDART_VERSION must be defined (11080, 12080)"
#endif

/* As in CUDA's driver_types.h. */
typedef enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorNoDevice = 100,
} cudaError_t;

#define CUDARTAPI
#define CUDART_API __attribute__((visibility("default")))

/* The runtime's per-thread state: the 11 build sets it up on first use, the
 * 12 build expects its own initialisation to have run (it never does here). */
struct cudart_context {
  int device;
  int flags;
};

static struct cudart_context* volatile current_context;

/* Not static, not inlined at -O0: the crash's first frame names it. */
int cudart_context_device(struct cudart_context* context) {
  return context->device; /* fake-cudart: null context */
}

CUDART_API cudaError_t CUDARTAPI cudaRuntimeGetVersion(int* runtimeVersion) {
  if (runtimeVersion == NULL) return cudaErrorInvalidValue;
  *runtimeVersion = FAKE_CUDART_VERSION;
  return cudaSuccess;
}

CUDART_API cudaError_t CUDARTAPI cudaGetDevice(int* device) {
  if (device == NULL) return cudaErrorInvalidValue;
#if FAKE_CUDART_VERSION < 12000
  static struct cudart_context context;
  if (current_context == NULL) current_context = &context;
#endif
  *device = cudart_context_device(current_context);
  return cudaSuccess;
}
