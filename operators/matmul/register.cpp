// The matmul family's operators in the dispatcher: matrix products.
#include "common/aten_forms.h"
#include "common/op_family.h"

namespace triton_jit::ops {
namespace {

const bool kMatmulRegistered = [] {
  (new OpFamily())  // never destroyed: the registrations last for the process
      ->op("mm(Tensor self, Tensor mat2) -> Tensor", &mm)
      .op("addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", &addmm)
      .op("bmm(Tensor self, Tensor mat2) -> Tensor", &bmm)
      .op("silu_and_mul_mm(Tensor gate_up, Tensor mat2) -> Tensor", &silu_and_mul_mm);
  return true;
}();

}  // namespace
}  // namespace triton_jit::ops
