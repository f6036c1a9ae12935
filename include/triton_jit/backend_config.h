// triton_jit/backend_config.h: the names libtriton_jit's backend_config.h gave, for code written
// against it (docs/cpp-api.md, "Coming from libtriton_jit"). This library's backend is fixed when it is
// built (triton_jit/config.h names it); the stream type is the driver's either way.
//
//   CUstream raw = static_cast<CUstream>(c10::cuda::getCurrentCUDAStream().stream());
//   f(raw, grid_x, 1, 1, num_warps, num_stages, args...);
#pragma once

#include "triton_jit/launch_config.h"

// The driver's stream type, declared as cuda.h declares it (the same typedef, so either order
// of includes is fine): code written against libtriton_jit names it without including cuda.h.
typedef CUstream_st* CUstream;
struct CUctx_st;

namespace triton_jit {

// What libtriton_jit's backend policies expose to callers; launching goes through
// TritonJITFunction, whatever the backend.
struct DefaultBackend {
  using StreamType = Stream;
  using ContextType = CUctx_st*;
};
using DefaultStreamType = DefaultBackend::StreamType;
using DefaultContextType = DefaultBackend::ContextType;

}  // namespace triton_jit
