// The topk family's operators in the dispatcher: top-k.
#include "common/aten_forms.h"
#include "common/op_family.h"

namespace triton_jit::ops {
namespace {

const bool kTopkRegistered = [] {
  (new OpFamily())  // never destroyed: the registrations last for the process
      ->op(
          "topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor "
          "indices)",
          &topk_op);
  return true;
}();

}  // namespace
}  // namespace triton_jit::ops
