/* two_libraries: two versions of one library in one process, as a job gets
 * them (a wheel or an extension bringing its own CUDA runtime next to the
 * one torch loaded). dlopen()s each path given, in order, as a framework
 * does (RTLD_NOW | RTLD_LOCAL), prints each runtime's version, then calls
 * cudaGetDevice in the last one, which faults (tests/crashers/gpu/fake_cudart.c).
 *
 *   two_libraries LIBCUDART LIBCUDART...
 *
 * Built with -g -O0 and never sanitized (tests/CMakeLists.txt). */
#include <dlfcn.h>
#include <stdio.h>

typedef int (*get_int_fn)(int*);

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: two_libraries LIBCUDART LIBCUDART...\n");
    return 64;
  }
  void* last = NULL;
  for (int i = 1; i < argc; ++i) {
    void* handle = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
      fprintf(stderr, "two_libraries: %s\n", dlerror());
      return 70;
    }
    get_int_fn version = (get_int_fn)dlsym(handle, "cudaRuntimeGetVersion");
    int value = 0;
    if (version == NULL || version(&value) != 0) {
      fprintf(stderr, "two_libraries: no cudaRuntimeGetVersion in %s\n", argv[i]);
      return 70;
    }
    printf("loaded %s: runtime %d\n", argv[i], value);
    last = handle;
  }
  fflush(stdout);
  get_int_fn get_device = (get_int_fn)dlsym(last, "cudaGetDevice");
  if (get_device == NULL) return 70;
  int device = -1;
  int error = get_device(&device);
  printf("cudaGetDevice came back: error %d, device %d\n", error, device);
  return 70;
}
