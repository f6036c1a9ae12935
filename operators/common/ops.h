// The operator library's C++ API: every op, callable directly (as below) or through the
// dispatcher as torch.ops.triton_jit.<name> once libtriton_jit_ops.so is loaded. Signatures and
// semantics mirror ATen's ops of the same name (broadcasting, type promotion, output layout,
// errors), so that ops::enable() can route ATen's own calls here.
#pragma once

#include <ATen/core/IListRef.h>
#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>
#include <c10/util/OptionalArrayRef.h>

#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <triton_jit/triton_jit.h>

namespace triton_jit::ops {

// ---- pointwise: broadcasting, type promotion, Scalar forms ----------------------------------
at::Tensor add(const at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha = 1);
at::Tensor add(const at::Tensor& self, const c10::Scalar& other, const c10::Scalar& alpha = 1);
at::Tensor sub(const at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha = 1);
at::Tensor sub(const at::Tensor& self, const c10::Scalar& other, const c10::Scalar& alpha = 1);
at::Tensor mul(const at::Tensor& self, const at::Tensor& other);
at::Tensor mul(const at::Tensor& self, const c10::Scalar& other);
// rounding_mode: none (true division), "trunc" or "floor".
at::Tensor div(const at::Tensor& self, const at::Tensor& other, std::optional<std::string_view> rounding_mode = {});
at::Tensor div(const at::Tensor& self, const c10::Scalar& other, std::optional<std::string_view> rounding_mode = {});
at::Tensor remainder(const at::Tensor& self, const at::Tensor& other);
at::Tensor remainder(const at::Tensor& self, const c10::Scalar& other);
at::Tensor maximum(const at::Tensor& self, const at::Tensor& other);
at::Tensor minimum(const at::Tensor& self, const at::Tensor& other);
at::Tensor where(const at::Tensor& condition, const at::Tensor& self, const at::Tensor& other);
at::Tensor neg(const at::Tensor& self);
at::Tensor abs(const at::Tensor& self);
at::Tensor exp(const at::Tensor& self);
at::Tensor log(const at::Tensor& self);
at::Tensor sqrt(const at::Tensor& self);
at::Tensor rsqrt(const at::Tensor& self);
at::Tensor sigmoid(const at::Tensor& self);
at::Tensor tanh(const at::Tensor& self);
at::Tensor relu(const at::Tensor& self);
at::Tensor gelu(const at::Tensor& self, std::string_view approximate = "none");
at::Tensor silu(const at::Tensor& self);

// ---- fused -----------------------------------------------------------------------------------
// Gated MLP activations: x[..., :d] activated, times x[..., d:], for x[..., 2d].
at::Tensor silu_and_mul(const at::Tensor& x);
at::Tensor gelu_and_mul(const at::Tensor& x, std::string_view approximate = "none");
// residual + x, and rms_norm of it: returns (normalised, the new residual).
std::tuple<at::Tensor, at::Tensor> fused_add_rms_norm(const at::Tensor& x, const at::Tensor& residual,
                                                      const at::Tensor& weight, double eps);
// Rotary position embedding as LLMs apply it: x [..., tokens, heads, head_dim] (or [tokens, heads,
// head_dim]); cos and sin caches [max_position, rotary_dim / 2]; positions (integers, one per
// token; default 0, 1, ...). The first rotary_dim features of each head rotate: halves (GPT-NeoX)
// or, interleaved, pairs (GPT-J); the rest pass through.
at::Tensor rotary_embedding(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin,
                            const std::optional<at::Tensor>& positions = {}, bool interleaved = false);
// A layer's rotary embedding and KV-cache write in one launch: q [tokens, heads, head_dim] and k,
// v [tokens, kv_heads, head_dim] (views of a qkv projection, each token's heads dense, are read in
// place), cos and sin [max_position, rotary_dim / 2], positions [tokens]; k rotated and v go into
// key_cache and value_cache [blocks, block_size, kv_heads, head_dim] at slot_mapping [tokens] as
// reshape_and_cache writes them. Returns q and k rotated, [tokens, heads or kv_heads, head_dim].
std::tuple<at::Tensor, at::Tensor> rotary_and_cache(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                                    const at::Tensor& cos, const at::Tensor& sin,
                                                    const at::Tensor& positions, const at::Tensor& key_cache,
                                                    const at::Tensor& value_cache, const at::Tensor& slot_mapping,
                                                    bool interleaved = false);

// ---- reductions --------------------------------------------------------------------------------
at::Tensor sum(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim = false,
               std::optional<at::ScalarType> dtype = {});
at::Tensor mean(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim = false,
                std::optional<at::ScalarType> dtype = {});
at::Tensor amax(const at::Tensor& self, at::IntArrayRef dim = {}, bool keepdim = false);
std::tuple<at::Tensor, at::Tensor> max(const at::Tensor& self, int64_t dim, bool keepdim = false);
std::tuple<at::Tensor, at::Tensor> min(const at::Tensor& self, int64_t dim, bool keepdim = false);
at::Tensor argmax(const at::Tensor& self, std::optional<int64_t> dim = {}, bool keepdim = false);
at::Tensor softmax(const at::Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype = {});
at::Tensor log_softmax(const at::Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype = {});

// ---- norms -------------------------------------------------------------------------------------
// (the _symint forms take symbolic sizes, as the Meta kernels must)
at::Tensor layer_norm_symint(const at::Tensor& input, c10::SymIntArrayRef normalized_shape,
                             const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias,
                             double eps);
at::Tensor rms_norm_symint(const at::Tensor& input, c10::SymIntArrayRef normalized_shape,
                           const std::optional<at::Tensor>& weight, std::optional<double> eps);
inline at::Tensor layer_norm(const at::Tensor& input, at::IntArrayRef normalized_shape,
                             const std::optional<at::Tensor>& weight = {}, const std::optional<at::Tensor>& bias = {},
                             double eps = 1e-5) {
  return ops::layer_norm_symint(input, c10::fromIntArrayRefSlow(normalized_shape), weight, bias, eps);
}
inline at::Tensor rms_norm(const at::Tensor& input, at::IntArrayRef normalized_shape,
                           const std::optional<at::Tensor>& weight = {}, std::optional<double> eps = {}) {
  return ops::rms_norm_symint(input, c10::fromIntArrayRefSlow(normalized_shape), weight, eps);
}

// ---- matmul (autotuned) ------------------------------------------------------------------------
at::Tensor mm(const at::Tensor& self, const at::Tensor& mat2);
at::Tensor addmm(const at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2, const c10::Scalar& beta = 1,
                 const c10::Scalar& alpha = 1);
at::Tensor bmm(const at::Tensor& self, const at::Tensor& mat2);
// mm(silu_and_mul(gate_up), mat2) for gate_up [M, 2K] (the gates, then the ups) and mat2 [K, N]: an
// MLP's down projection fed by its gate/up projection, checked as one op; two launches (made as
// the product loaded it, the activation measured slower than its own launch, matmul.cpp).
at::Tensor silu_and_mul_mm(const at::Tensor& gate_up, const at::Tensor& mat2);

// ---- indexing ------------------------------------------------------------------------------------
at::Tensor embedding(const at::Tensor& weight, const at::Tensor& indices, int64_t padding_idx = -1,
                     bool scale_grad_by_freq = false, bool sparse = false);
at::Tensor index_select(const at::Tensor& self, int64_t dim, const at::Tensor& index);
at::Tensor gather(const at::Tensor& self, int64_t dim, const at::Tensor& index, bool sparse_grad = false);
at::Tensor cat(const at::ITensorListRef& tensors, int64_t dim = 0);
std::tuple<at::Tensor, at::Tensor> topk_symint(const at::Tensor& self, c10::SymInt k, int64_t dim, bool largest,
                                               bool sorted);
inline std::tuple<at::Tensor, at::Tensor> topk(const at::Tensor& self, int64_t k, int64_t dim = -1, bool largest = true,
                                               bool sorted = true) {
  return ops::topk_symint(self, c10::SymInt(k), dim, largest, sorted);
}

// ---- attention ----------------------------------------------------------------------------------
// Prefill over a variable-length batch, as flash-attn's flash_attn_varlen_func: q [total_q, heads,
// head_dim], k and v [total_k, kv_heads, head_dim] (kv_heads dividing heads), cu_seqlens_q/k int32
// [batch + 1] (each sequence's first token; the last entry the total), max_seqlen_q the longest query
// sequence (it sizes the grid; max_seqlen_k is checked only). The scale defaults to 1/sqrt(head_dim);
// a causal mask aligns to the bottom right. head_dim 16 to 256 (powers of two); float16, bfloat16, float32.
at::Tensor flash_attn_varlen(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                             const at::Tensor& cu_seqlens_q, const at::Tensor& cu_seqlens_k, int64_t max_seqlen_q,
                             int64_t max_seqlen_k, std::optional<double> softmax_scale = {}, bool causal = false);
// One decode step against a paged KV cache in vLLM's flash layout: q [batch, heads, head_dim],
// key_cache and value_cache [blocks, block_size, kv_heads, head_dim], block_tables int32 [batch,
// max_blocks] (the cache blocks of each sequence, in order), seq_lens int32 [batch]. Contexts
// longer than 512 tokens are split over programs and reduced. Nothing is read on the host: the
// call captures into a CUDA graph.
at::Tensor paged_attention(const at::Tensor& q, const at::Tensor& key_cache, const at::Tensor& value_cache,
                           const at::Tensor& block_tables, const at::Tensor& seq_lens,
                           std::optional<double> softmax_scale = {});
// Writes key and value [tokens, kv_heads, head_dim] into the caches at slot_mapping [tokens] (slot =
// block * block_size + offset; a negative slot is skipped), as vLLM's reshape_and_cache_flash.
void reshape_and_cache(const at::Tensor& key, const at::Tensor& value, const at::Tensor& key_cache,
                       const at::Tensor& value_cache, const at::Tensor& slot_mapping);
// A decode batch's inputs for its next step, in place, as vLLM's advance_step: input_tokens =
// sampled_token_ids ([num_seqs] or [num_seqs, 1]); each sequence's length becomes its position and
// grows by one; slot_mapping = the new position's slot in block_tables [num_seqs, blocks]
// (block * block_size + offset). Integers of 32 or 64 bits; one launch.
void advance_step(const at::Tensor& input_tokens, const at::Tensor& sampled_token_ids,
                  const at::Tensor& input_positions, const at::Tensor& seq_lens, const at::Tensor& slot_mapping,
                  const at::Tensor& block_tables, int64_t block_size);

// ---- standing in for ATen ------------------------------------------------------------------------
// Routes the named ATen ops ("aten::mm", "aten::add.Tensor", ...) on CUDA tensors to ours, until
// disable(). Throws ValueError naming an op that has no stand-in; standing_in() lists them all.
void enable(const std::vector<std::string>& aten_ops);
void disable();
std::vector<std::string> standing_in();        // the ops enable() accepts
std::vector<std::string> enabled_stand_ins();  // the ops routed now

// An enabled stand-in whose kernel is slower than ATen's for some shapes sends those calls back to
// ATen's own CUDA kernel (the rules, measured on the H200, are in common/stand_in_policy.h), so that
// enabling stand-ins never slows a model down. set_stand_in_routing(false) sends every call of an
// enabled stand-in to ours (to test or time our kernels through ATen's calls).
void set_stand_in_routing(bool enabled);
bool stand_in_routing();
struct StandInRoutes {
  std::string op;       // "aten::mm"
  uint64_t ours, aten;  // calls sent to ours and back to ATen since the library loaded
};
std::vector<StandInRoutes> stand_in_routes();  // every stand-in that routes

// ---- launching ---------------------------------------------------------------------------------
// Inside a DependentLaunches scope, on sm_90 and newer, the norms, the gated activations,
// rotary_and_cache, paged attention, advance_step and the products of at most 64 rows (mm,
// addmm, bmm) launch dependent on the kernel before them on the stream
// (programmatic dependent launch): each may start while its predecessor finishes and waits for
// its writes before reading, the same bits either way. The scope is the calling thread's and is
// captured into CUDA graphs like any launch. Off by default: a long grid of dependents can hold
// SM slots that its predecessor's later blocks would use, so the caller that knows its grids opens
// it (common/dependent_launch.h).
class DependentLaunches {
 public:
  DependentLaunches() noexcept;
  ~DependentLaunches();
  DependentLaunches(const DependentLaunches&) = delete;
  DependentLaunches& operator=(const DependentLaunches&) = delete;
};

// Compiles the variants the demo uses for `dtype`, without a GPU.
std::vector<VariantInfo> warmup(c10::ScalarType dtype);

}  // namespace triton_jit::ops
