#include "backend/hip/hip_driver.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>

#include "triton_jit/errors.h"

namespace triton_jit::detail::hip {
namespace {

Driver* load_driver() {
  auto* d = new Driver();  // never destroyed: launches may run during static destruction
  // TRITON_JIT_HIP_RUNTIME names another runtime library (a ROCm install off the search path, or
  // the tests' stand-in).
  const char* env = std::getenv("TRITON_JIT_HIP_RUNTIME");
  const bool named = env != nullptr && *env != '\0';
  void* lib = nullptr;
  std::string tried;
  for (const char* path : {named ? env : "libamdhip64.so.6", named ? nullptr : "libamdhip64.so"}) {
    if (path == nullptr) continue;
    lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib != nullptr) break;
    const char* why = dlerror();
    tried += fmt::format("{}{} ({})", tried.empty() ? "" : "; ", path, why ? why : "unknown reason");
  }
  if (lib == nullptr) {
    d->load_error = fmt::format("could not be loaded: {}", tried);
    return d;
  }
#define TRITON_JIT_RESOLVE(name)                                                 \
  {                                                                              \
    void* fn = dlsym(lib, #name);                                                \
    if (fn == nullptr) {                                                         \
      d->load_error = fmt::format("the HIP runtime does not provide {}", #name); \
      return d;                                                                  \
    }                                                                            \
    d->name = reinterpret_cast<decltype(d->name)>(fn);                           \
  }
  TRITON_JIT_HIP_FUNCTIONS(TRITON_JIT_RESOLVE)
  TRITON_JIT_RESOLVE(hipMalloc)
#undef TRITON_JIT_RESOLVE
  const hipError_t init = d->hipInit(0);
  if (init != hipSuccess) {
    d->load_error = fmt::format("hipInit failed ({})", d->hipGetErrorName(init));
    return d;
  }
  d->loaded = true;
  return d;
}

}  // namespace

const Driver& driver() noexcept {
  static const Driver* instance = load_driver();
  return *instance;
}

const Driver& require_driver() {
  const Driver& d = driver();
  if (!d.loaded) [[unlikely]]
    throw DriverError(0, fmt::format("triton_jit: no HIP runtime: libamdhip64 {}", d.load_error));
  return d;
}

void throw_driver_error(const char* call, hipError_t result) {
  const Driver& d = driver();
  const char* name = d.loaded ? d.hipGetErrorName(result) : nullptr;
  const char* text = d.loaded ? d.hipGetErrorString(result) : nullptr;
  throw DriverError(static_cast<int>(result),
                    fmt::format("triton_jit: {} failed: {} ({})", call, name ? name : "unknown error",
                                text ? text : "no description"));
}

}  // namespace triton_jit::detail::hip
