#include <ATen/ExpandUtils.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/result_type.h>

#include <array>

#include <triton_jit/torch.h>

#include "common/kernel_path.h"
#include "common/triton_jit_ops.h"

namespace triton_jit::ops {
namespace {

constexpr int64_t kBlock = 1024;

const TritonJITFunction& add_kernel() {
  static const TritonJITFunction& k = TritonJITFunction::get_instance(kernel_path("add.py"), "add_kernel");
  return k;
}

const TritonJITFunction& add_scalar_kernel() {
  static const TritonJITFunction& k = TritonJITFunction::get_instance(kernel_path("add.py"), "add_scalar_kernel");
  return k;
}

// `t` broadcast to `shape` as a rank-4 view: leading dims of size 1, broadcast dims of stride 0.
// Computed from sizes and strides, without creating the expanded tensor (that costs a TensorImpl).
struct View4 {
  std::array<int64_t, 4> sizes{1, 1, 1, 1};
  std::array<int64_t, 4> strides{0, 0, 0, 0};
};

View4 broadcast_view4(const at::Tensor& t, c10::IntArrayRef shape) {
  View4 v;
  const int64_t rank = static_cast<int64_t>(shape.size());
  const int64_t t_rank = t.dim();
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t td = d - (rank - t_rank);
    v.sizes[4 - rank + d] = shape[d];
    v.strides[4 - rank + d] = (td >= 0 && t.size(td) != 1) ? t.stride(td) : 0;
  }
  return v;
}

}  // namespace

at::Tensor add(const at::Tensor& self, const at::Tensor& other) {
  torch::check_cuda(self, "triton_jit::add", "self");
  torch::check_cuda(other, "triton_jit::add", "other");
  torch::check_same_device(self, other, "triton_jit::add");
  const auto dtype = at::result_type(self, other);
  const auto shape = at::infer_size_dimvector(self.sizes(), other.sizes());
  at::Tensor out = torch::empty_output(shape, dtype, self);
  if (out.numel() == 0) return out;
  at::Tensor x = self;
  at::Tensor y = other;
  if (shape.size() > 4) {  // beyond rank 4: materialise the broadcast and add flat
    x = self.expand(shape).contiguous().view({-1});
    y = other.expand(shape).contiguous().view({-1});
  }
  const int64_t flat[1] = {out.numel()};
  const c10::IntArrayRef view_shape = shape.size() > 4 ? c10::IntArrayRef(flat) : c10::IntArrayRef(shape);
  const View4 xv = broadcast_view4(x, view_shape);
  const View4 yv = broadcast_view4(y, view_shape);
  torch::install_scratch_allocator();
  torch::DeviceGuard guard(self);
  add_kernel()(torch::current_stream(), torch::blocks_for(out.numel(), kBlock), 1, 1, 4, 3, x, y, out, out.numel(),
               xv.sizes[1], xv.sizes[2], xv.sizes[3], xv.strides[0], xv.strides[1], xv.strides[2], xv.strides[3],
               yv.strides[0], yv.strides[1], yv.strides[2], yv.strides[3], kBlock);
  return out;
}

at::Tensor add(const at::Tensor& self, const c10::Scalar& other) {
  torch::check_cuda(self, "triton_jit::add", "self");
  const auto dtype = at::result_type(self, other);
  at::Tensor x = self.contiguous();
  at::Tensor out = torch::empty_output(self.sizes(), dtype, self);
  if (out.numel() == 0) return out;
  torch::install_scratch_allocator();
  torch::DeviceGuard guard(self);
  add_scalar_kernel()(torch::current_stream(), torch::blocks_for(out.numel(), kBlock), 1, 1, 4, 3, x, other, out,
                      out.numel(), kBlock);
  return out;
}

std::vector<VariantInfo> add_warmup(c10::ScalarType dtype) {
  // Host tensors stand in for device ones: warmup only reads their dtype and alignment.
  at::Tensor x = at::empty({64, 64}, at::TensorOptions().dtype(dtype));
  LaunchConfig config;
  config.num_warps = 4;
  config.num_stages = 3;
  std::vector<VariantInfo> made;
  made.push_back(add_kernel().warmup(config, x, x, x, int64_t{4096}, int64_t{1}, int64_t{64}, int64_t{64}, int64_t{0},
                                     int64_t{0}, int64_t{64}, int64_t{1}, int64_t{0}, int64_t{0}, int64_t{64},
                                     int64_t{1}, kBlock));
  made.push_back(add_scalar_kernel().warmup(config, x, 2.0, x, int64_t{4096}, kBlock));
  return made;
}

}  // namespace triton_jit::ops
