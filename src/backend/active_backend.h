// The backend compiled into this build, chosen at configure time (TRITON_JIT_BACKEND).
#pragma once

#include "backend/cuda/cuda_backend.h"
#include "triton_jit/config.h"
#include "triton_jit/impl/backend_policy.h"

namespace triton_jit::detail {

using ActiveBackend = cuda::CudaBackend;
static_assert(impl::BackendPolicy<ActiveBackend>);

}  // namespace triton_jit::detail
