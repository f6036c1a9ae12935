#include "backend/cuda/cuda_driver.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>

#include "triton_jit/errors.h"

namespace triton_jit::detail::cuda {
namespace {

constexpr int kDriverAbiVersion = 12000;

using GetProcAddress = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

Driver* load_driver() {
  auto* d = new Driver();  // never destroyed: launches may run during static destruction
  // TRITON_JIT_CUDA_DRIVER names another driver library (a compat driver, or the tests' stand-in).
  const char* env = std::getenv("TRITON_JIT_CUDA_DRIVER");
  const char* path = env != nullptr && *env != '\0' ? env : "libcuda.so.1";
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    d->load_error = fmt::format("{} could not be loaded ({})", path, why ? why : "unknown reason");
    return d;
  }
  auto get_proc = reinterpret_cast<GetProcAddress>(dlsym(lib, "cuGetProcAddress_v2"));
  if (get_proc == nullptr) {
    d->load_error = "libcuda.so.1 has no cuGetProcAddress_v2 (driver older than CUDA 12)";
    return d;
  }
  // Each entry point through cuGetProcAddress at the CUDA 12.0 ABI: our declarations (from cuda.h's
  // unversioned names) have that ABI, while asking for CUDA_VERSION can return a newer variant
  // with other parameters (CUDA 13's cuCtxGetDevice_v2 takes a context too).
#define TRITON_JIT_RESOLVE(name)                                                                         \
  {                                                                                                      \
    CUdriverProcAddressQueryResult status;                                                               \
    void* fn = nullptr;                                                                                  \
    if (get_proc(#name, &fn, kDriverAbiVersion, CU_GET_PROC_ADDRESS_DEFAULT, &status) != CUDA_SUCCESS || \
        fn == nullptr) {                                                                                 \
      d->load_error = fmt::format("the CUDA driver does not provide {}", #name);                         \
      return d;                                                                                          \
    }                                                                                                    \
    d->name = reinterpret_cast<decltype(d->name)>(fn);                                                   \
  }
  TRITON_JIT_CUDA_FUNCTIONS(TRITON_JIT_RESOLVE)
#undef TRITON_JIT_RESOLVE
  CUresult init = d->cuInit(0);
  if (init != CUDA_SUCCESS) {
    const char* name = nullptr;
    d->cuGetErrorName(init, &name);
    d->load_error = fmt::format("cuInit failed ({})", name ? name : "unknown error");
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
    throw DriverError(0, fmt::format("triton_jit: no CUDA driver: {}", d.load_error));
  return d;
}

void throw_driver_error(const char* call, CUresult result) {
  const Driver& d = driver();
  const char* name = nullptr;
  const char* text = nullptr;
  if (d.loaded) {
    d.cuGetErrorName(result, &name);
    d.cuGetErrorString(result, &text);
  }
  throw DriverError(static_cast<int>(result),
                    fmt::format("triton_jit: {} failed: {} ({})", call, name ? name : "unknown error",
                                text ? text : "no description"));
}

}  // namespace triton_jit::detail::cuda
