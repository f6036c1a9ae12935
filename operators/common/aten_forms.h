// The registered forms: each schema's C++ types as the dispatcher calls them, over the library's
// functions (common/ops.h), for the families' rows and the ATen stand-ins alike.
#pragma once

#include <ATen/core/Tensor.h>

#include <optional>
#include <tuple>

#include "common/ops.h"

namespace triton_jit::ops {

using at::Tensor;
using c10::Scalar;
using Pair = std::tuple<Tensor, Tensor>;

inline Tensor add_tensor(const Tensor& a, const Tensor& b, const Scalar& alpha) { return ops::add(a, b, alpha); }
inline Tensor add_scalar(const Tensor& a, const Scalar& b, const Scalar& alpha) { return ops::add(a, b, alpha); }
inline Tensor sub_tensor(const Tensor& a, const Tensor& b, const Scalar& alpha) { return ops::sub(a, b, alpha); }
inline Tensor sub_scalar(const Tensor& a, const Scalar& b, const Scalar& alpha) { return ops::sub(a, b, alpha); }
inline Tensor mul_tensor(const Tensor& a, const Tensor& b) { return ops::mul(a, b); }
inline Tensor mul_scalar(const Tensor& a, const Scalar& b) { return ops::mul(a, b); }
inline Tensor div_tensor(const Tensor& a, const Tensor& b) { return ops::div(a, b); }
inline Tensor div_scalar(const Tensor& a, const Scalar& b) { return ops::div(a, b); }
inline Tensor div_tensor_mode(const Tensor& a, const Tensor& b, std::optional<c10::string_view> mode) {
  return ops::div(a, b, mode);
}
inline Tensor div_scalar_mode(const Tensor& a, const Scalar& b, std::optional<c10::string_view> mode) {
  return ops::div(a, b, mode);
}
inline Tensor remainder_tensor(const Tensor& a, const Tensor& b) { return ops::remainder(a, b); }
inline Tensor remainder_scalar(const Tensor& a, const Scalar& b) { return ops::remainder(a, b); }
inline Tensor gelu_op(const Tensor& a, c10::string_view approximate) { return ops::gelu(a, approximate); }
inline Tensor gelu_and_mul_op(const Tensor& a, c10::string_view approximate) {
  return ops::gelu_and_mul(a, approximate);
}
inline Tensor softmax_int(const Tensor& a, int64_t dim, std::optional<at::ScalarType> dtype) {
  return ops::softmax(a, dim, dtype);
}
inline Tensor log_softmax_int(const Tensor& a, int64_t dim, std::optional<at::ScalarType> dtype) {
  return ops::log_softmax(a, dim, dtype);
}
inline Tensor softmax_aten(const Tensor& a, int64_t dim, bool half_to_float) {
  return ops::softmax(a, dim, half_to_float ? std::optional<at::ScalarType>(at::kFloat) : std::nullopt);
}
inline Tensor log_softmax_aten(const Tensor& a, int64_t dim, bool half_to_float) {
  return ops::log_softmax(a, dim, half_to_float ? std::optional<at::ScalarType>(at::kFloat) : std::nullopt);
}
inline Tensor layer_norm_op(const Tensor& input, c10::SymIntArrayRef shape, const std::optional<Tensor>& weight,
                            const std::optional<Tensor>& bias, double eps, bool /*cudnn_enable*/) {
  return ops::layer_norm_symint(input, shape, weight, bias, eps);
}
inline Tensor embedding_op(const Tensor& weight, const Tensor& indices, c10::SymInt padding_idx, bool scale,
                           bool sparse) {
  return ops::embedding(weight, indices, padding_idx.guard_int(__FILE__, __LINE__), scale, sparse);
}
inline Pair topk_op(const Tensor& self, c10::SymInt k, int64_t dim, bool largest, bool sorted) {
  return ops::topk_symint(self, std::move(k), dim, largest, sorted);
}

}  // namespace triton_jit::ops
