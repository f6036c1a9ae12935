// The CUDA driver API, loaded at run time: the library links and its CPU tests run on machines
// without a driver, and a launch there fails with "no CUDA driver". The only code besides
// cuda_backend.cpp that includes cuda.h.
#pragma once

#include <cuda.h>

#include <string>

namespace triton_jit::detail::cuda {

struct Driver {
#define TRITON_JIT_CUDA_FUNCTIONS(X)   \
  X(cuInit)                            \
  X(cuDriverGetVersion)                \
  X(cuGetErrorName)                    \
  X(cuGetErrorString)                  \
  X(cuDeviceGet)                       \
  X(cuDeviceGetCount)                  \
  X(cuDeviceGetName)                   \
  X(cuDeviceGetAttribute)              \
  X(cuDevicePrimaryCtxRetain)          \
  X(cuCtxGetCurrent)                   \
  X(cuCtxSetCurrent)                   \
  X(cuCtxGetDevice)                    \
  X(cuCtxPushCurrent)                  \
  X(cuCtxPopCurrent)                   \
  X(cuModuleLoadData)                  \
  X(cuModuleUnload)                    \
  X(cuModuleGetFunction)               \
  X(cuFuncGetAttribute)                \
  X(cuFuncSetAttribute)                \
  X(cuFuncSetCacheConfig)              \
  X(cuLaunchKernelEx)                  \
  X(cuEventCreate)                     \
  X(cuEventRecord)                     \
  X(cuEventSynchronize)                \
  X(cuEventElapsedTime)                \
  X(cuEventDestroy)                    \
  X(cuStreamSynchronize)               \
  X(cuMemAlloc)                        \
  X(cuMemFree)                         \
  X(cuMemsetD8Async)                   \
  X(cuMemsetD32Async)                  \
  X(cuMemcpyDtoDAsync)                 \
  X(cuMemcpyHtoD)                      \
  X(cuMemcpyDtoH)                      \
  X(cuStreamIsCapturing)               \
  X(cuThreadExchangeStreamCaptureMode) \
  X(cuTensorMapEncodeTiled)

#define TRITON_JIT_DECLARE(name) decltype(&::name) name = nullptr;
  TRITON_JIT_CUDA_FUNCTIONS(TRITON_JIT_DECLARE)
#undef TRITON_JIT_DECLARE

  bool loaded = false;
  std::string load_error;  // why loading failed
};

// The process-wide driver table, loaded on first use (thread-safe); never destroyed.
const Driver& driver() noexcept;

// Throws DriverError "no CUDA driver: ..." when the driver could not be loaded.
const Driver& require_driver();

// Throws DriverError naming the call, the error name and its text. Cold.
[[noreturn]] void throw_driver_error(const char* call, CUresult result);

}  // namespace triton_jit::detail::cuda

#define TRITON_JIT_CU_CHECK(call_expr)                                                \
  do {                                                                                \
    CUresult triton_jit_result_ = (call_expr);                                        \
    if (triton_jit_result_ != CUDA_SUCCESS) [[unlikely]]                              \
      ::triton_jit::detail::cuda::throw_driver_error(#call_expr, triton_jit_result_); \
  } while (0)
