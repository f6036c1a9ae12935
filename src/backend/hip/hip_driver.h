// The HIP runtime API, loaded at run time from libamdhip64 (or TRITON_JIT_HIP_RUNTIME): the library
// builds and its CPU tests run without ROCm. The declarations come from the HIP headers that
// every Triton wheel ships for its AMD launcher. The only code besides hip_backend.cpp that
// includes them.
#pragma once

#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__
#endif
#include <hip/hip_runtime_api.h>

#include <string>

namespace triton_jit::detail::hip {

struct Driver {
#define TRITON_JIT_HIP_FUNCTIONS(X)     \
  X(hipInit)                            \
  X(hipGetErrorName)                    \
  X(hipGetErrorString)                  \
  X(hipGetDeviceCount)                  \
  X(hipGetDevice)                       \
  X(hipSetDevice)                       \
  X(hipDeviceGetAttribute)              \
  X(hipDeviceGetName)                   \
  X(hipGetDevicePropertiesR0600)        \
  X(hipModuleLoadData)                  \
  X(hipModuleUnload)                    \
  X(hipModuleGetFunction)               \
  X(hipFuncGetAttribute)                \
  X(hipModuleLaunchKernel)              \
  X(hipStreamSynchronize)               \
  X(hipStreamIsCapturing)               \
  X(hipThreadExchangeStreamCaptureMode) \
  X(hipFree)                            \
  X(hipMemsetD8Async)                   \
  X(hipMemsetD32Async)                  \
  X(hipMemcpyDtoDAsync)                 \
  X(hipMemcpyHtoD)                      \
  X(hipMemcpyDtoH)                      \
  X(hipEventCreate)                     \
  X(hipEventRecord)                     \
  X(hipEventSynchronize)                \
  X(hipEventElapsedTime)                \
  X(hipEventDestroy)

#define TRITON_JIT_DECLARE(name) decltype(&::name) name = nullptr;
  TRITON_JIT_HIP_FUNCTIONS(TRITON_JIT_DECLARE)
#undef TRITON_JIT_DECLARE
  // The C entry point: C++ sees hipMalloc overloaded by a template, which decltype cannot name.
  hipError_t (*hipMalloc)(void** ptr, size_t size) = nullptr;

  bool loaded = false;
  std::string load_error;
};

// The process-wide runtime table, loaded on first use (thread-safe); never destroyed.
const Driver& driver() noexcept;
// Throws DriverError "no HIP runtime: ..." when it could not be loaded.
const Driver& require_driver();
// Throws DriverError naming the call, the error name and its text. Cold.
[[noreturn]] void throw_driver_error(const char* call, hipError_t result);

}  // namespace triton_jit::detail::hip

#define TRITON_JIT_HIP_CHECK(call_expr)                                              \
  do {                                                                               \
    hipError_t triton_jit_result_ = (call_expr);                                     \
    if (triton_jit_result_ != hipSuccess) [[unlikely]]                               \
      ::triton_jit::detail::hip::throw_driver_error(#call_expr, triton_jit_result_); \
  } while (0)
