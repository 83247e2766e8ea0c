#include "library.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

namespace gpu_probe {

Library load_library(const char* override_variable, const char* default_name) {
  Library library;
  const char* requested = ::getenv(override_variable);
  library.requested = requested && *requested ? requested : default_name;
  // A driver library's constructors run at load and can crash too.
  announce(("dlopen " + library.requested).c_str());
  // RTLD_LOCAL: the driver's symbols stay out of the global scope, where the
  // other library's lookups could bind to them.
  library.handle = ::dlopen(library.requested.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library.handle) {
    const char* error = ::dlerror();
    library.error = error ? error : "dlopen failed";
    return library;
  }
  link_map* map = nullptr;
  if (::dlinfo(library.handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name) {
    library.path = map->l_name;
  } else {
    library.path = library.requested;
  }
  return library;
}

void announce(const char* call) {
  char line[160];
  const int n = ::snprintf(line, sizeof line, "ftdiag-gpu-probe: calling %s\n", call);
  if (n > 0) (void)!::write(2, line, static_cast<size_t>(n) < sizeof line ? n : sizeof line - 1);
}

void announce(const char* call, int device) {
  char text[128];
  ::snprintf(text, sizeof text, "%s (device %d)", call, device);
  announce(text);
}

}  // namespace gpu_probe
