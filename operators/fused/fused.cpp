// Fused ops of LLM inference: gated activations and rotary position embedding. (The fused residual
// add + rms_norm shares norm.py's kernel and lives in norm/.)
#include <ATen/ops/empty.h>

#include "common/launch.h"
#include "common/layout.h"
#include "common/ops.h"

namespace triton_jit::ops {
namespace {

at::Tensor gated(const char* op, const at::Tensor& x, const char* act) {
  TORCH_CHECK(x.dim() >= 1, op, ": x must have at least one dimension");
  const c10::SymInt width = x.sym_size(-1);
  TORCH_CHECK(width % 2 == 0, op, ": the last dimension of x (", to_text(width), ") must be even");
  c10::SymDimVector shape(x.sym_sizes().begin(), x.sym_sizes().end());
  shape.back() = width / 2;
  at::Tensor out = at::empty_symint(shape, x.options());
  check_dtype_supported(at::isFloatingType(x.scalar_type()), op, x.scalar_type());
  if (out.is_meta() || out.numel() == 0) return out;
  TORCH_CHECK(x.is_cuda(), op, ": expected a CUDA tensor, got ", x.device());
  static const TritonJITFunction& k = kernel("gated.py", "gated_kernel");
  const at::Tensor xc = x.contiguous();
  const int64_t d = out.size(-1);
  const int64_t rows = out.numel() / d;
  const int64_t block_d = std::min<int64_t>(next_power_of_2(d), 1024);
  const int64_t block_r = std::clamp<int64_t>(2048 / block_d, 1, 64);
  Slots<10> s;
  s.add_all(xc, out, rows, d, std::string_view(act), block_r, block_d, x.numel() > kMaxInt32);
  torch_adapter::DeviceGuard guard(x);
  s.launch(k, launch_config(x, static_cast<unsigned>(cdiv(rows, block_r)), static_cast<unsigned>(cdiv(d, block_d))));
  return out;
}

}  // namespace

at::Tensor silu_and_mul(const at::Tensor& x) { return gated("silu_and_mul", x, "silu"); }

at::Tensor gelu_and_mul(const at::Tensor& x, std::string_view approximate) {
  TORCH_CHECK(approximate == "none" || approximate == "tanh", "approximate argument must be either none or tanh.");
  return gated("gelu_and_mul", x, approximate == "tanh" ? "gelu_tanh" : "gelu");
}

at::Tensor rotary_embedding(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin,
                            const std::optional<at::Tensor>& positions, bool interleaved) {
  constexpr const char* op = "rotary_embedding";
  TORCH_CHECK(x.dim() >= 3, op, ": x must be [..., tokens, heads, head_dim], got ", x.dim(), " dims");
  TORCH_CHECK(cos.dim() == 2 && sin.dim() == 2 && cos.sym_sizes().equals(sin.sym_sizes()), op,
              ": cos and sin must be [max_position, rotary_dim / 2] and of one shape, got ", to_text(cos.sym_sizes()),
              " and ", to_text(sin.sym_sizes()));
  const c10::SymInt rotary = cos.sym_size(1) * 2;
  TORCH_CHECK(rotary <= x.sym_size(-1), op, ": rotary_dim ", to_text(rotary), " is more than head_dim ",
              to_text(x.sym_size(-1)));
  const bool has_positions = positions.has_value() && positions->defined();
  if (has_positions) {
    TORCH_CHECK(positions->scalar_type() == at::kLong || positions->scalar_type() == at::kInt, op,
                ": positions must be int32 or int64, got ", c10::toString(positions->scalar_type()));
  }
  at::Tensor out = at::empty_symint(x.sym_sizes(), x.options());
  check_dtype_supported(at::isFloatingType(x.scalar_type()), op, x.scalar_type());
  if (out.is_meta() || out.numel() == 0) return out;
  TORCH_CHECK(x.is_cuda() && cos.device() == x.device() && sin.device() == x.device() &&
                  (!has_positions || positions->device() == x.device()),
              op, ": expected all tensors on one CUDA device");
  const int64_t heads = x.size(-2), head_dim = x.size(-1), seq = x.size(-3);
  const int64_t tokens = x.numel() / (heads * head_dim);
  if (has_positions) {
    TORCH_CHECK(positions->numel() == tokens, op, ": positions has ", positions->numel(), " values for ", tokens,
                " tokens");
  } else {
    TORCH_CHECK(seq <= cos.size(0), op, ": ", seq, " positions, but the cos/sin caches hold ", cos.size(0));
  }
  static const TritonJITFunction& k = kernel("rotary.py", "rotary_kernel");
  const at::Tensor xc = x.contiguous();
  const at::Tensor c = cos.stride(1) == 1 ? cos : cos.contiguous();
  const at::Tensor sn = sin.stride(1) == 1 ? sin : sin.contiguous();
  const int64_t rot = c.size(1) * 2;
  const int64_t block_d = std::max<int64_t>(next_power_of_2(rot / 2), 1);
  const int64_t block_h = std::clamp<int64_t>(1024 / block_d, 1, next_power_of_2(heads));
  Slots<20> s;
  s.add_all(xc, c, sn, has_positions ? positions->contiguous() : at::Tensor(), out, tokens, seq, heads, head_dim, rot,
            c.stride(0), sn.stride(0), has_positions, interleaved, block_h, block_d);
  torch_adapter::DeviceGuard guard(x);
  s.launch(k, launch_config(x, static_cast<unsigned>(tokens), static_cast<unsigned>(cdiv(heads, block_h))));
  return out;
}

}  // namespace triton_jit::ops
