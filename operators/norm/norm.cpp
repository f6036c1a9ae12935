// layer_norm, rms_norm and the fused residual add + rms_norm: ATen's checks of normalized_shape,
// weight and bias, then norm.py over the rows of the last N elements.
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>

#include <limits>
#include <sstream>

#include "common/launch.h"
#include "common/layout.h"
#include "common/ops.h"

namespace triton_jit::ops {
namespace {

std::string shape_text(c10::SymIntArrayRef shape) { return to_text(shape); }

// ATen's _check_layer_norm_inputs: the rows' length N.
c10::SymInt check_normalized(const char* op, const at::Tensor& input, c10::SymIntArrayRef normalized_shape,
                             const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias) {
  const int64_t normalized_ndim = static_cast<int64_t>(normalized_shape.size());
  TORCH_CHECK(normalized_ndim >= 1,
              "Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
              "least one element, but got normalized_shape = ",
              shape_text(normalized_shape));
  for (const auto* t : {&weight, &bias}) {
    if (t->has_value() && (*t)->defined()) {
      TORCH_CHECK((*t)->sym_sizes().equals(normalized_shape), "Expected ", t == &weight ? "weight" : "bias",
                  " to be of same shape as normalized_shape, but got ", t == &weight ? "weight" : "bias", " of shape ",
                  shape_text((*t)->sym_sizes()), " and normalized_shape = ", shape_text(normalized_shape));
    }
  }
  const int64_t input_ndim = input.dim();
  bool matches = input_ndim >= normalized_ndim;
  for (int64_t i = 0; matches && i < normalized_ndim; ++i) {
    matches = input.sym_size(input_ndim - normalized_ndim + i) == normalized_shape[i];
  }
  TORCH_CHECK(
      matches, "Given normalized_shape=", shape_text(normalized_shape), ", expected input with shape [*",
      [&] {
        std::string s;
        for (const auto& d : normalized_shape) s += ", " + to_text(d);
        return s;
      }(),
      "], but got input of size", shape_text(input.sym_sizes()));
  (void)op;
  c10::SymInt n = 1;
  for (const auto& d : normalized_shape) n = n * d;
  return n;
}

const at::Tensor* defined(const std::optional<at::Tensor>& t) { return t.has_value() && t->defined() ? &*t : nullptr; }

void run_norm(const at::Tensor& x, const at::Tensor* residual, const at::Tensor* residual_out, const at::Tensor* weight,
              const at::Tensor* bias, const at::Tensor& out, int64_t n, double eps, bool rms) {
  static const TritonJITFunction& k = kernel("norm.py", "norm_kernel");
  const int64_t rows = n == 0 ? 0 : x.numel() / n;
  if (rows == 0) return;
  const bool one_pass = n <= 8192;
  const int64_t block = one_pass ? next_power_of_2(n) : 4096;
  const int warps = block >= 8192 ? 16 : block >= 2048 ? 8 : 4;
  auto maybe = [](const at::Tensor* t) { return t != nullptr ? *t : at::Tensor(); };
  at::Tensor w = weight != nullptr ? weight->contiguous() : at::Tensor();
  at::Tensor b = bias != nullptr ? bias->contiguous() : at::Tensor();
  Slots<20> s;
  s.add_all(x, maybe(residual), maybe(residual_out), w, b, out, rows, n, fixed<float>(static_cast<float>(eps)));
  s.add_all(rms, residual != nullptr, weight != nullptr, bias != nullptr, one_pass, block, x.numel() > kMaxInt32);
  torch_adapter::DeviceGuard guard(x);
  launch_after(s, k, launch_config(x, static_cast<unsigned>(rows), 1, 1, warps), x);
}

void check_same_device(const char* op, const at::Tensor& input, std::initializer_list<const at::Tensor*> others) {
  for (const at::Tensor* t : others) {
    if (t == nullptr) continue;
    TORCH_CHECK(t->device() == input.device(), op,
                ": expected all tensors to be on the same device, but found at "
                "least two devices, ",
                input.device(), " and ", t->device(), "!");
  }
  TORCH_CHECK(input.is_cuda() || input.is_meta(), op, ": expected CUDA tensors, got ", input.device());
}

}  // namespace

at::Tensor layer_norm_symint(const at::Tensor& input, c10::SymIntArrayRef normalized_shape,
                             const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias,
                             double eps) {
  const c10::SymInt n = check_normalized("LayerNormKernelImpl", input, normalized_shape, weight, bias);
  at::Tensor out = at::empty_symint(input.sym_sizes(), input.options());
  check_dtype_supported(at::isFloatingType(input.scalar_type()), "LayerNormKernelImpl", input.scalar_type(), out);
  if (out.is_meta() || out.numel() == 0) return out;
  check_same_device("layer_norm", input, {defined(weight), defined(bias)});
  run_norm(input.contiguous(), nullptr, nullptr, defined(weight), defined(bias), out, n.expect_int(), eps, false);
  return out;
}

at::Tensor rms_norm_symint(const at::Tensor& input, c10::SymIntArrayRef normalized_shape,
                           const std::optional<at::Tensor>& weight, std::optional<double> eps) {
  const c10::SymInt n = check_normalized("rms_norm", input, normalized_shape, weight, std::nullopt);
  at::Tensor out = at::empty_symint(input.sym_sizes(), input.options());
  check_dtype_supported(at::isFloatingType(input.scalar_type()), "rms_norm", input.scalar_type(), out);
  if (out.is_meta() || out.numel() == 0) return out;
  check_same_device("rms_norm", input, {defined(weight)});
  const double e = eps                                  ? *eps
                   : input.scalar_type() == at::kDouble ? std::numeric_limits<double>::epsilon()
                                                        : std::numeric_limits<float>::epsilon();
  run_norm(input.contiguous(), nullptr, nullptr, defined(weight), nullptr, out, n.expect_int(), e, true);
  return out;
}

std::tuple<at::Tensor, at::Tensor> fused_add_rms_norm(const at::Tensor& x, const at::Tensor& residual,
                                                      const at::Tensor& weight, double eps) {
  TORCH_CHECK(x.dim() >= 1, "fused_add_rms_norm: x must have at least one dimension");
  TORCH_CHECK(x.sym_sizes().equals(residual.sym_sizes()), "fused_add_rms_norm: residual of shape ",
              shape_text(residual.sym_sizes()), " does not match x of shape ", shape_text(x.sym_sizes()));
  TORCH_CHECK(x.scalar_type() == residual.scalar_type(), "fused_add_rms_norm: residual has dtype ",
              c10::toString(residual.scalar_type()), ", x has ", c10::toString(x.scalar_type()));
  const c10::SymInt last = x.sym_size(-1);
  const c10::SymInt n = check_normalized("fused_add_rms_norm", x, c10::SymIntArrayRef(&last, 1), weight, std::nullopt);
  at::Tensor out = at::empty_symint(x.sym_sizes(), x.options());
  at::Tensor residual_out = at::empty_symint(x.sym_sizes(), x.options());
  check_dtype_supported(at::isFloatingType(x.scalar_type()), "fused_add_rms_norm", x.scalar_type(), out);
  if (out.is_meta() || out.numel() == 0) return {out, residual_out};
  check_same_device("fused_add_rms_norm", x, {&residual, &weight});
  const at::Tensor r = residual.contiguous();
  run_norm(x.contiguous(), &r, &residual_out, &weight, nullptr, out, n.expect_int(), eps, true);
  return {out, residual_out};
}

}  // namespace triton_jit::ops
