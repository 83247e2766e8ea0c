// Loading a driver library at run time, by the name the driver installs
// (libcuda.so.1) or by the path an environment variable gives (tests point
// it at fakes; a user at a driver outside the loader's path).
#pragma once

#include <dlfcn.h>

#include <string>

namespace gpu_probe {

struct Library {
  void* handle = nullptr;  // never dlclose'd: unloading an initialised driver can crash
  std::string requested;   // the name or path asked for
  std::string path;        // the file the loader found; empty when not loaded
  std::string error;       // dlerror() when not loaded
};

// Loads $`override_variable`, else `default_name`.
Library load_library(const char* override_variable, const char* default_name);

// Looks `name` up in the library; false when it does not export it.
template <class Function>
bool bind(const Library& library, const char* name, Function& function) {
  function = reinterpret_cast<Function>(::dlsym(library.handle, name));
  return function != nullptr;
}

// Writes "ftdiag-gpu-probe: calling NAME" to stderr before a call into the
// driver, so that when the call crashes or hangs, the last such line tells
// ftdiag where (collect/gpu_probe.cpp reads it).
void announce(const char* call);
void announce(const char* call, int device);

}  // namespace gpu_probe
