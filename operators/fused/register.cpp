// The fused family's operators in the dispatcher: fused gated activations, residual add with RMS norm, and rotary
// embeddings.
#include "common/aten_forms.h"
#include "common/op_family.h"

namespace triton_jit::ops {
namespace {

const bool kFusedRegistered = [] {
  (new OpFamily())  // never destroyed: the registrations last for the process
      ->op("silu_and_mul(Tensor x) -> Tensor", &silu_and_mul)
      .op("gelu_and_mul(Tensor x, str approximate='none') -> Tensor", &gelu_and_mul_op)
      .op("fused_add_rms_norm(Tensor x, Tensor residual, Tensor weight, float eps=1e-06) -> (Tensor, Tensor)",
          &fused_add_rms_norm)
      .op("rotary_embedding(Tensor x, Tensor cos, Tensor sin, Tensor? positions=None, bool interleaved=False) -> "
          "Tensor",
          &rotary_embedding)
      .op("rotary_and_cache(Tensor q, Tensor k, Tensor v, Tensor cos, Tensor sin, Tensor positions, Tensor(a!) "
          "key_cache, Tensor(b!) value_cache, Tensor slot_mapping, bool interleaved=False) -> (Tensor, Tensor)",
          &rotary_and_cache);
  return true;
}();

}  // namespace
}  // namespace triton_jit::ops
