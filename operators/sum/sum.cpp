#include <ATen/ops/empty.h>
#include <ATen/WrapDimUtils.h>

#include <triton_jit/torch.h>

#include "common/kernel_path.h"
#include "common/triton_jit_ops.h"

namespace triton_jit::ops {
namespace {

const TritonJITFunction& sum_kernel() {
  static const TritonJITFunction& k = TritonJITFunction::get_instance(kernel_path("sum.py"), "sum_dim_kernel");
  return k;
}

int64_t next_power_of_two(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

struct Blocks {
  int64_t n;
  int64_t k;
};

Blocks blocks_for(int64_t k) {
  const int64_t block_k = std::min<int64_t>(next_power_of_two(k), 64);
  return Blocks{std::max<int64_t>(1024 / block_k, 16), block_k};
}

}  // namespace

at::Tensor sum(const at::Tensor& self, int64_t dim, bool keepdim) {
  torch::check_cuda(self, "triton_jit::sum", "self");
  const int64_t rank = std::max<int64_t>(self.dim(), 1);
  dim = at::maybe_wrap_dim(dim, rank);
  std::vector<int64_t> out_shape(self.sizes().begin(), self.sizes().end());
  if (self.dim() == 0) out_shape = {1};
  int64_t m = 1, k = 1;
  for (int64_t d = 0; d < dim; ++d) m *= out_shape[d];
  const int64_t n = out_shape[dim];
  for (int64_t d = dim + 1; d < rank; ++d) k *= out_shape[d];
  if (keepdim) {
    out_shape[dim] = 1;
  } else {
    out_shape.erase(out_shape.begin() + dim);
  }
  if (self.dim() == 0 && !keepdim) out_shape.clear();
  at::Tensor out = torch::empty_output(out_shape, self.scalar_type(), self);
  if (out.numel() == 0) return out;
  if (n == 0) return out.zero_();
  at::Tensor x = self.contiguous();
  const Blocks b = blocks_for(k);
  torch::install_scratch_allocator();
  torch::DeviceGuard guard(self);
  sum_kernel()(torch::current_stream(), static_cast<unsigned>(m), torch::blocks_for(k, b.k), 1, 4, 3, x, out, m, n, k,
               b.n, b.k);
  return out;
}

std::vector<VariantInfo> sum_warmup(c10::ScalarType dtype) {
  at::Tensor x = at::empty({64, 256}, at::TensorOptions().dtype(dtype));
  LaunchConfig config;
  config.num_warps = 4;
  config.num_stages = 3;
  const Blocks b = blocks_for(1);
  return {sum_kernel().warmup(config, x, x, int64_t{64}, int64_t{256}, int64_t{1}, b.n, b.k)};
}

}  // namespace triton_jit::ops
