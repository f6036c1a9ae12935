// ops::warmup: the variants the demo launches, compiled without a GPU (host tensors stand in for
// device ones: a warmup reads only their dtype and alignment). The arguments mirror the wrappers'.
#include <ATen/ops/empty.h>

#include "common/launch.h"
#include "common/ops.h"

namespace triton_jit::ops {

std::vector<VariantInfo> warmup(c10::ScalarType dtype) {
  const at::Tensor x = at::empty({512, 1024}, at::TensorOptions().dtype(dtype));
  const at::Tensor f32 = at::empty({512, 1024}, at::TensorOptions().dtype(at::kFloat));
  LaunchConfig config;
  config.num_warps = 4;
  const int64_t n = x.numel(), z = 0, one = 1;
  std::vector<VariantInfo> made;
  // add: contiguous, and broadcast (strided walk)
  made.push_back(kernel("pointwise.py", "binary_kernel")
                     .warmup(config, x, x, x, n, one, one, one, z, z, z, z, z, z, z, z, fixed<float>(1.0f),
                             std::string_view("add1"), true, false, int64_t{1024}));
  made.push_back(kernel("pointwise.py", "binary_kernel")
                     .warmup(config, x, x, x, n, one, int64_t{512}, int64_t{1024}, z, z, int64_t{1024}, one, z, z, z,
                             one, fixed<float>(1.0f), std::string_view("add1"), false, false, int64_t{1024}));
  // sum over rows
  made.push_back(kernel("reduce.py", "reduce_rows_kernel")
                     .warmup(config, x, at::Tensor(), f32, at::Tensor(), int64_t{512}, int64_t{1024}, int64_t{1024},
                             fixed<float>(1.0f), std::string_view("sum"), std::string_view("fp32"), false, int64_t{4},
                             int64_t{1024}, false));
  // softmax over rows, rms_norm, silu_and_mul
  made.push_back(kernel("softmax.py", "softmax_rows_kernel")
                     .warmup(config, x, x, int64_t{512}, int64_t{1024}, false, true, int64_t{1024}, false));
  made.push_back(kernel("norm.py", "norm_kernel")
                     .warmup(config, x, at::Tensor(), at::Tensor(), x, at::Tensor(), x, int64_t{512}, int64_t{1024},
                             fixed<float>(1e-6f), true, false, true, false, true, int64_t{1024}, false));
  made.push_back(
      kernel("gated.py", "gated_kernel")
          .warmup(config, x, x, int64_t{512}, int64_t{512}, std::string_view("silu"), int64_t{4}, int64_t{512}, false));
  if (dtype == at::kBFloat16) {  // the matmuls of an LLM's linear layers: a decode step's, and a prefill's on Hopper
    const int64_t m = 16, rows = 512, k = 1024, nn = 1024, zero = 0;
    const at::Tensor weight = at::empty({nn, k}, at::TensorOptions().dtype(dtype));
    const at::Tensor b = weight.t();  // nn.Linear's layout
    LaunchConfig tuned = config;
    tuned.num_warps = 0;  // the configs'
    made.push_back(kernel("matmul_skinny.py", "matmul_skinny_kernel")
                       .warmup(tuned, x, b, x, at::Tensor(), m, nn, k, m * k, k, one, nn * k, one, k, m * nn, nn, one,
                               zero, zero, zero, fixed<float>(1.0f), fixed<float>(0.0f), zero, false, int64_t{16}));
    made.push_back(kernel("matmul_tma.py", "matmul_tma_kernel")
                       .warmup(tuned, x, b, x, at::Tensor(), rows, nn, k, one, rows * k, k, nn * k, one, k, rows * nn,
                               nn, zero, zero, zero, fixed<float>(1.0f), fixed<float>(0.0f), rows, false, true,
                               int64_t{132}));
    const TensorDescriptor a_desc = torch_adapter::tensor_descriptor(x, {64, 64});
    const TensorDescriptor b_desc = torch_adapter::tensor_descriptor(weight, {64, 64});
    const TensorDescriptor b1_desc = b_desc, b2_desc = b_desc;
    made.push_back(kernel("matmul_wave.py", "matmul_wave_kernel")
                       .warmup(tuned, a_desc, b_desc, b1_desc, b2_desc, x, at::Tensor(), rows, nn, k, nn, zero, zero,
                               fixed<float>(1.0f), fixed<float>(0.0f), rows, false, int64_t{132}));
  }
  return made;
}

}  // namespace triton_jit::ops
