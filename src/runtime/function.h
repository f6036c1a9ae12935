// What a TritonJITFunction holds: its variant table, and what its decorators keep.
#pragma once

#include "decorators/decorated_calls.h"
#include "triton_jit/triton_jit_function.h"
#include "variants/function_state.h"

namespace triton_jit {

struct TritonJITFunction::Impl : detail::FunctionState {
  detail::DecoratedCalls decorated;  // configured at get_instance
};

}  // namespace triton_jit
