// The pointwise family's operators in the dispatcher: elementwise arithmetic, comparisons and activations.
#include "common/aten_forms.h"
#include "common/op_family.h"

namespace triton_jit::ops {
namespace {

const bool kPointwiseRegistered = [] {
  (new OpFamily())  // never destroyed: the registrations last for the process
      ->op("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", &add_tensor)
      .op("add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", &add_scalar)
      .op("sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", &sub_tensor)
      .op("sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", &sub_scalar)
      .op("mul.Tensor(Tensor self, Tensor other) -> Tensor", &mul_tensor)
      .op("mul.Scalar(Tensor self, Scalar other) -> Tensor", &mul_scalar)
      .op("div.Tensor(Tensor self, Tensor other) -> Tensor", &div_tensor)
      .op("div.Scalar(Tensor self, Scalar other) -> Tensor", &div_scalar)
      .op("div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor", &div_tensor_mode)
      .op("div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor", &div_scalar_mode)
      .op("remainder.Tensor(Tensor self, Tensor other) -> Tensor", &remainder_tensor)
      .op("remainder.Scalar(Tensor self, Scalar other) -> Tensor", &remainder_scalar)
      .op("maximum(Tensor self, Tensor other) -> Tensor", &maximum)
      .op("minimum(Tensor self, Tensor other) -> Tensor", &minimum)
      .op("where.self(Tensor condition, Tensor self, Tensor other) -> Tensor", &where)
      .op("neg(Tensor self) -> Tensor", &neg)
      .op("abs(Tensor self) -> Tensor", &abs)
      .op("exp(Tensor self) -> Tensor", &exp)
      .op("log(Tensor self) -> Tensor", &log)
      .op("sqrt(Tensor self) -> Tensor", &sqrt)
      .op("rsqrt(Tensor self) -> Tensor", &rsqrt)
      .op("sigmoid(Tensor self) -> Tensor", &sigmoid)
      .op("tanh(Tensor self) -> Tensor", &tanh)
      .op("relu(Tensor self) -> Tensor", &relu)
      .op("silu(Tensor self) -> Tensor", &silu)
      .op("gelu(Tensor self, *, str approximate='none') -> Tensor", &gelu_op);
  return true;
}();

}  // namespace
}  // namespace triton_jit::ops
