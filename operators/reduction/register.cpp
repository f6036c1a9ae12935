// The reduction family's operators in the dispatcher: reductions and softmax.
#include "common/aten_forms.h"
#include "common/op_family.h"

namespace triton_jit::ops {
namespace {

const bool kReductionRegistered = [] {
  (new OpFamily())  // never destroyed: the registrations last for the process
      ->op("sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", &sum)
      .op("mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", &mean)
      .op("amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", &amax)
      .op("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", &max)
      .op("min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", &min)
      .op("argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", &argmax)
      .op("softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", &softmax_int)
      .op("log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", &log_softmax_int)
      .op("_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", &softmax_aten)
      .op("_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", &log_softmax_aten);
  return true;
}();

}  // namespace
}  // namespace triton_jit::ops
