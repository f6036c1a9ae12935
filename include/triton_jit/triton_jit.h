// triton_jit/triton_jit.h: the whole public API of the core library.
//
//   #include <triton_jit/triton_jit.h>
//   auto& f = triton_jit::TritonJITFunction::get_instance("kernel.py", "my_kernel");
//   f(stream, grid_x, 1, 1, 4, 3, triton_jit::device_pointer(x, triton_jit::DType::kFloat32), n);
//
// With libtorch, include triton_jit/torch.h as well and link TritonJIT::torch.
#pragma once

#include "triton_jit/arguments.h"
#include "triton_jit/compile_options.h"
#include "triton_jit/config.h"
#include "triton_jit/device_buffer.h"
#include "triton_jit/errors.h"
#include "triton_jit/jit_function_arg.h"
#include "triton_jit/launch_config.h"
#include "triton_jit/settings.h"
#include "triton_jit/triton_jit_function.h"
