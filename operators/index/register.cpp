// The index family's operators in the dispatcher: embedding, index_select, gather and cat.
#include "common/aten_forms.h"
#include "common/op_family.h"

namespace triton_jit::ops {
namespace {

const bool kIndexRegistered = [] {
  (new OpFamily())  // never destroyed: the registrations last for the process
      ->op(
          "embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, bool "
          "sparse=False) -> Tensor",
          &embedding_op)
      .op("index_select(Tensor self, int dim, Tensor index) -> Tensor", &index_select)
      .op("gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor", &gather)
      .op("cat(Tensor[] tensors, int dim=0) -> Tensor", &cat);
  return true;
}();

}  // namespace
}  // namespace triton_jit::ops
