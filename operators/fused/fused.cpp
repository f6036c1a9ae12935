// Fused ops of LLM inference: gated activations, rotary position embedding, and rotary embedding
// with the KV-cache write of a layer in one launch. (The fused residual add + rms_norm shares
// norm.py's kernel and lives in norm/.)
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
  launch_after(
      s, k, launch_config(x, static_cast<unsigned>(cdiv(rows, block_r)), static_cast<unsigned>(cdiv(d, block_d))), x);
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

namespace {

// [tokens, heads, head_dim] with each token's heads dense, as views of a qkv projection are.
bool heads_dense(const at::Tensor& t) { return t.stride(2) == 1 && t.stride(1) == t.size(2); }

}  // namespace

std::tuple<at::Tensor, at::Tensor> rotary_and_cache(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                                    const at::Tensor& cos, const at::Tensor& sin,
                                                    const at::Tensor& positions, const at::Tensor& key_cache,
                                                    const at::Tensor& value_cache, const at::Tensor& slot_mapping,
                                                    bool interleaved) {
  constexpr const char* op = "rotary_and_cache";
  TORCH_CHECK(q.dim() == 3 && k.dim() == 3 && k.sym_sizes().equals(v.sym_sizes()), op,
              ": q must be [tokens, heads, head_dim], k and v [tokens, kv_heads, head_dim] of one shape, got ",
              to_text(q.sym_sizes()), ", ", to_text(k.sym_sizes()), " and ", to_text(v.sym_sizes()));
  TORCH_CHECK(q.sym_size(0) == k.sym_size(0) && q.sym_size(2) == k.sym_size(2), op,
              ": q and k must have the same tokens and head_dim, got ", to_text(q.sym_sizes()), " and ",
              to_text(k.sym_sizes()));
  TORCH_CHECK(cos.dim() == 2 && sin.dim() == 2 && cos.sym_sizes().equals(sin.sym_sizes()), op,
              ": cos and sin must be [max_position, rotary_dim / 2] and of one shape, got ", to_text(cos.sym_sizes()),
              " and ", to_text(sin.sym_sizes()));
  TORCH_CHECK(cos.sym_size(1) * 2 <= q.sym_size(2), op, ": rotary_dim ", to_text(cos.sym_size(1) * 2),
              " is more than head_dim ", to_text(q.sym_size(2)));
  TORCH_CHECK(key_cache.dim() == 4 && key_cache.sym_sizes().equals(value_cache.sym_sizes()) &&
                  key_cache.sym_size(2) == k.sym_size(1) && key_cache.sym_size(3) == k.sym_size(2),
              op, ": key_cache and value_cache must be [blocks, block_size, kv_heads, head_dim] (",
              to_text(k.sym_size(1)), ", ", to_text(k.sym_size(2)), "), got ", to_text(key_cache.sym_sizes()), " and ",
              to_text(value_cache.sym_sizes()));
  for (const at::Tensor* index : {&positions, &slot_mapping}) {
    TORCH_CHECK(index->dim() == 1 && index->sym_size(0) == q.sym_size(0), op,
                ": positions and slot_mapping must be [tokens] (", to_text(q.sym_size(0)), "), got ",
                to_text(index->sym_sizes()));
    TORCH_CHECK(index->scalar_type() == at::kLong || index->scalar_type() == at::kInt, op,
                ": positions and slot_mapping must be int32 or int64, got ", c10::toString(index->scalar_type()));
  }
  for (const at::Tensor* t : {&k, &v, &key_cache, &value_cache}) {
    TORCH_CHECK(t->scalar_type() == q.scalar_type(), op, ": q, k, v and the caches must have one dtype, got ",
                c10::toString(q.scalar_type()), " and ", c10::toString(t->scalar_type()));
  }
  // A float32 table keeps the angles' precision (vLLM's cos_sin_cache may be either); the kernel
  // rotates in float32 whichever it reads.
  TORCH_CHECK(cos.scalar_type() == sin.scalar_type() &&
                  (cos.scalar_type() == q.scalar_type() || cos.scalar_type() == at::kFloat),
              op, ": cos and sin must have one dtype, q's (", c10::toString(q.scalar_type()), ") or Float, got ",
              c10::toString(cos.scalar_type()), " and ", c10::toString(sin.scalar_type()));
  check_dtype_supported(at::isFloatingType(q.scalar_type()), op, q.scalar_type());
  at::Tensor q_out = at::empty_symint(q.sym_sizes(), q.options());
  at::Tensor k_out = at::empty_symint(k.sym_sizes(), k.options());
  if (q_out.is_meta() || key_cache.is_meta() || q.numel() == 0) return {q_out, k_out};
  for (const at::Tensor* t : {&k, &v, &cos, &sin, &positions, &key_cache, &value_cache, &slot_mapping}) {
    TORCH_CHECK(q.is_cuda() && t->device() == q.device(), op, ": expected all tensors on one CUDA device, got ",
                q.device(), " and ", t->device());
  }
  TORCH_CHECK(key_cache.stride(3) == 1 && key_cache.stride(2) == key_cache.size(3) && value_cache.stride(3) == 1 &&
                  value_cache.stride(2) == value_cache.size(3),
              op, ": the caches' [kv_heads, head_dim] must be dense");
  const at::Tensor qc = heads_dense(q) ? q : q.contiguous();
  const at::Tensor kc = heads_dense(k) ? k : k.contiguous();
  const at::Tensor vc = heads_dense(v) ? v : v.contiguous();
  const at::Tensor c = cos.stride(1) == 1 ? cos : cos.contiguous();
  const at::Tensor sn = sin.stride(1) == 1 ? sin : sin.contiguous();
  const int64_t tokens = q.size(0), heads = q.size(1), kv_heads = k.size(1), head_dim = q.size(2);
  const int64_t rot = c.size(1) * 2;
  const int64_t block_d = std::max<int64_t>(next_power_of_2(rot / 2), 1);
  const int64_t block_v = std::min<int64_t>(next_power_of_2(head_dim), 128);
  const int64_t block_h =
      std::clamp<int64_t>(2048 / std::max(block_d, block_v), 1, next_power_of_2(std::max(heads, kv_heads)));
  static const TritonJITFunction& kernel_fn = kernel("rotary.py", "rotary_cache_kernel");
  Slots<32> s;
  s.add_all(qc, kc, vc, c, sn, positions.contiguous(), q_out, k_out, key_cache, value_cache, slot_mapping.contiguous(),
            tokens, heads, kv_heads, head_dim, rot, qc.stride(0), kc.stride(0), vc.stride(0), c.stride(0), sn.stride(0),
            key_cache.size(1), key_cache.stride(0), key_cache.stride(1), value_cache.stride(0), value_cache.stride(1),
            interleaved, block_h, block_d, block_v);
  torch_adapter::DeviceGuard guard(q);
  launch_after(s, kernel_fn,
               launch_config(q, static_cast<unsigned>(tokens),
                             static_cast<unsigned>(cdiv(heads, block_h) + cdiv(kv_heads, block_h))),
               q);
  return {q_out, k_out};
}

}  // namespace triton_jit::ops
