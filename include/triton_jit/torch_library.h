// triton_jit/torch_library.h: register an operator's CUDA and Meta implementations together.
//
//   TORCH_LIBRARY(my_ops, m) { m.def("add(Tensor a, Tensor b) -> Tensor"); }
//   static triton_jit::torch_adapter::OpLibrary ops("my_ops");
//   static const bool registered = (ops.impl("add", &add_cuda, &add_meta), true);
//
// The CUDA implementation launches Triton kernels through triton_jit; the Meta one only
// computes shapes and dtypes (torch.compile and fake tensors need it). The registrations last
// as long as the OpLibrary object.
#pragma once

#include <torch/library.h>

namespace triton_jit::torch_adapter {

class OpLibrary {
 public:
  explicit OpLibrary(const char* ns, const char* file = __builtin_FILE(), uint32_t line = __builtin_LINE())
      : cuda_(::torch::Library::IMPL, ns, c10::DispatchKey::CUDA, file, line),
        meta_(::torch::Library::IMPL, ns, c10::DispatchKey::Meta, file, line) {}

  template <class CudaFn, class MetaFn>
  OpLibrary& impl(const char* name, CudaFn* cuda, MetaFn* meta) {
    cuda_.impl(name, cuda);
    meta_.impl(name, meta);
    return *this;
  }

 private:
  ::torch::Library cuda_;
  ::torch::Library meta_;
};

}  // namespace triton_jit::torch_adapter
