// Where the operators' .py kernels are: beside libtriton_jit_ops.so, in triton_jit_kernels/.
#pragma once

#include <string>

namespace triton_jit::ops {

std::string kernel_path(const char* file);

}  // namespace triton_jit::ops
