// The example operators: add (broadcasting, type promotion, tensor + tensor and tensor +
// scalar) and sum over a dim. Registered with the dispatcher as triton_jit::add.Tensor,
// triton_jit::add.Scalar and triton_jit::sum.dim (CUDA and Meta), callable from Python after
// torch.ops.load_library("libtriton_jit_ops.so").
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>

#include <vector>

#include <triton_jit/triton_jit.h>

namespace triton_jit::ops {

at::Tensor add(const at::Tensor& self, const at::Tensor& other);
at::Tensor add(const at::Tensor& self, const c10::Scalar& other);
at::Tensor sum(const at::Tensor& self, int64_t dim, bool keepdim);

// Compiles the variants the operators use for `dtype`, without a GPU (for the demo).
std::vector<VariantInfo> warmup(c10::ScalarType dtype);

}  // namespace triton_jit::ops
