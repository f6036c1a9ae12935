// Registers the example operators with the PyTorch dispatcher: CUDA kernels through triton_jit,
// Meta kernels for shape and dtype inference.
#include <ATen/ExpandUtils.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/result_type.h>
#include <torch/library.h>
#include <triton_jit/torch_library.h>

#include "common/triton_jit_ops.h"

namespace triton_jit::ops {

std::vector<VariantInfo> add_warmup(c10::ScalarType dtype);
std::vector<VariantInfo> sum_warmup(c10::ScalarType dtype);

std::vector<VariantInfo> warmup(c10::ScalarType dtype) {
  auto made = add_warmup(dtype);
  for (auto& v : sum_warmup(dtype)) made.push_back(std::move(v));
  return made;
}

namespace {

at::Tensor add_tensor_cuda(const at::Tensor& self, const at::Tensor& other) { return ops::add(self, other); }
at::Tensor add_scalar_cuda(const at::Tensor& self, const c10::Scalar& other) { return ops::add(self, other); }
at::Tensor sum_dim_cuda(const at::Tensor& self, int64_t dim, bool keepdim) { return ops::sum(self, dim, keepdim); }

at::Tensor add_tensor_meta(const at::Tensor& self, const at::Tensor& other) {
  return at::empty(at::infer_size(self.sizes(), other.sizes()), self.options().dtype(at::result_type(self, other)));
}
at::Tensor add_scalar_meta(const at::Tensor& self, const c10::Scalar& other) {
  return at::empty(self.sizes(), self.options().dtype(at::result_type(self, other)));
}
at::Tensor sum_dim_meta(const at::Tensor& self, int64_t dim, bool keepdim) {
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end());
  if (!shape.empty()) {
    dim = at::maybe_wrap_dim(dim, self.dim());
    if (keepdim) {
      shape[dim] = 1;
    } else {
      shape.erase(shape.begin() + dim);
    }
  }
  return at::empty(shape, self.options());
}

}  // namespace
}  // namespace triton_jit::ops

TORCH_LIBRARY(triton_jit, m) {
  m.def("add.Tensor(Tensor self, Tensor other) -> Tensor");
  m.def("add.Scalar(Tensor self, Scalar other) -> Tensor");
  m.def("sum.dim(Tensor self, int dim, bool keepdim=False) -> Tensor");
}

namespace {

triton_jit::torch::OpLibrary& implementations() {
  static auto* library = [] {  // never destroyed: the registrations last for the process
    auto* l = new triton_jit::torch::OpLibrary("triton_jit");
    l->impl("add.Tensor", &triton_jit::ops::add_tensor_cuda, &triton_jit::ops::add_tensor_meta)
        .impl("add.Scalar", &triton_jit::ops::add_scalar_cuda, &triton_jit::ops::add_scalar_meta)
        .impl("sum.dim", &triton_jit::ops::sum_dim_cuda, &triton_jit::ops::sum_dim_meta);
    return l;
  }();
  return *library;
}

const bool kRegistered = (implementations(), true);

}  // namespace
