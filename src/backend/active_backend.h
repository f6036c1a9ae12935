// The backend compiled into this build, chosen at configure time (TRITON_JIT_BACKEND).
#pragma once

#include "triton_jit/config.h"
#include "triton_jit/impl/backend_policy.h"

#if defined(TRITON_JIT_BACKEND_HIP)
#include "backend/hip/hip_backend.h"
#else
#include "backend/cuda/cuda_backend.h"
#endif

namespace triton_jit::detail {

#if defined(TRITON_JIT_BACKEND_HIP)
using ActiveBackend = hip::HipBackend;
#else
using ActiveBackend = cuda::CudaBackend;
#endif
static_assert(impl::BackendPolicy<ActiveBackend>);

}  // namespace triton_jit::detail
