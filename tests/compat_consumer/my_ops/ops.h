#pragma once

#include <torch/torch.h>

namespace my_ops {

at::Tensor add_tensor(const at::Tensor& a, const at::Tensor& b);
// out = alpha * x + y through a raw launch (a hand-written signature and argument addresses).
at::Tensor axpy(const at::Tensor& x, const at::Tensor& y, double alpha);
// activation(x) with the activation a @triton.jit function passed to the kernel ("leaky_relu" or
// "square"), compiled with CompileOptions.
at::Tensor activation(const at::Tensor& x, const std::string& name);

// Compiles every kernel these ops launch for `device` without launching (no GPU needed).
void precompile(int device);

}  // namespace my_ops
