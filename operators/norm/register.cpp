// The norm family's operators in the dispatcher: layer and RMS norm.
#include "common/aten_forms.h"
#include "common/op_family.h"

namespace triton_jit::ops {
namespace {

const bool kNormRegistered = [] {
  (new OpFamily())  // never destroyed: the registrations last for the process
      ->op(
          "layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float "
          "eps=1e-05, bool cudnn_enable=True) -> Tensor",
          &layer_norm_op)
      .op("rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, float? eps=None) -> Tensor",
          &rms_norm_symint);
  return true;
}();

}  // namespace
}  // namespace triton_jit::ops
