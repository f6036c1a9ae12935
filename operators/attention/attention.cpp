// Attention of LLM inference (attention.py): variable-length prefill in flash-attn's layout,
// decode against a paged KV cache in vLLM's flash layout, and the write of keys and values into
// that cache. Checks name the op and the argument; Meta tensors get the result's shape only.
#include <ATen/cuda/CUDAContext.h>
#include <ATen/ops/empty.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>

#include "common/launch.h"
#include "common/layout.h"
#include "common/ops.h"

namespace triton_jit::ops {
namespace {

constexpr double kLog2e = 1.4426950408889634;

bool attention_dtype(at::ScalarType t) { return t == at::kHalf || t == at::kBFloat16 || t == at::kFloat; }

// q's [heads, head_dim] end at dim q_at, k's and v's at kv_at.
void check_heads(const char* op, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, int64_t q_at,
                 int64_t kv_at) {
  TORCH_CHECK(q.scalar_type() == k.scalar_type() && q.scalar_type() == v.scalar_type(), op,
              ": q, k and v must have one dtype, got ", c10::toString(q.scalar_type()), ", ",
              c10::toString(k.scalar_type()), " and ", c10::toString(v.scalar_type()));
  TORCH_CHECK(attention_dtype(q.scalar_type()), op, ": expected float16, bfloat16 or float32, got ",
              c10::toString(q.scalar_type()));
  const c10::SymInt head_dim = q.sym_size(q_at);
  TORCH_CHECK(k.sym_size(kv_at) == head_dim && v.sym_size(kv_at) == head_dim, op,
              ": q, k and v must share head_dim, got ", to_text(head_dim), ", ", to_text(k.sym_size(kv_at)), " and ",
              to_text(v.sym_size(kv_at)));
  const c10::SymInt q_heads = q.sym_size(q_at - 1), kv_heads = k.sym_size(kv_at - 1);
  TORCH_CHECK(v.sym_size(kv_at - 1) == kv_heads, op, ": k and v must have as many heads, got ", to_text(kv_heads),
              " and ", to_text(v.sym_size(kv_at - 1)));
  TORCH_CHECK(kv_heads > 0 && q_heads % kv_heads == 0, op, ": the KV heads (", to_text(kv_heads),
              ") must divide the query heads (", to_text(q_heads), ")");
  const int64_t d = head_dim.guard_int(__FILE__, __LINE__);
  TORCH_CHECK(d == 64 || d == 128 || d == 256 || d == 32 || d == 16, op,
              ": head_dim must be 16, 32, 64, 128 or 256, got ", d);
}

void check_index(const char* op, const char* name, const at::Tensor& t, int64_t dims) {
  TORCH_CHECK(t.dim() == dims, op, ": ", name, " must have ", dims, " dims, got ", t.dim());
  TORCH_CHECK(t.scalar_type() == at::kInt, op, ": ", name, " must be int32, got ", c10::toString(t.scalar_type()));
}

void check_device(const char* op, const at::Tensor& like, std::initializer_list<const at::Tensor*> others) {
  TORCH_CHECK(like.is_cuda(), op, ": expected CUDA tensors, got ", like.device());
  for (const at::Tensor* t : others) {
    TORCH_CHECK(t->device() == like.device(), op, ": expected every tensor on ", like.device(), ", got one on ",
                t->device());
  }
}

// The last two dims ([heads, head_dim]) of a token row must be dense for the kernels' addressing.
at::Tensor with_dense_heads(const at::Tensor& t) {
  const int64_t n = t.dim();
  return t.stride(n - 1) == 1 && t.stride(n - 2) == t.size(n - 1) ? t : t.contiguous();
}

const char* precision(const at::Tensor& q) { return q.scalar_type() == at::kFloat ? "ieee" : "tf32"; }

// Hopper takes the Gluon kernels (attention_gluon.py: a TMA producer warp feeding two consumer
// warpgroups in ping-pong, wgmma): 0.98-1.09x SDPA's default time from 1k to 16k tokens at head
// dim 128 on the H200, where prefill_kernel takes 1.2-1.4x. They need 16-byte aligned rows (TMA)
// and keys to read; a Triton without Gluon (before 3.5) fails the first compile, after which the
// process keeps prefill_kernel and says why once.
std::atomic<bool> g_gluon_refused{false};

bool tma_rows(const at::Tensor& t) {
  return reinterpret_cast<std::uintptr_t>(t.data_ptr()) % 16 == 0 && (t.stride(0) * t.element_size()) % 16 == 0;
}

bool gluon_prefill_fits(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& out,
                        int64_t d) {
  if (g_gluon_refused.load(std::memory_order_relaxed)) return false;
  if (q.scalar_type() == at::kFloat || (d != 64 && d != 128 && d != 256) || k.size(0) == 0) return false;
  if (at::cuda::getDeviceProperties(q.device().index())->major != 9) return false;
  return tma_rows(q) && tma_rows(k) && tma_rows(v) && tma_rows(out);
}

// Query blocks of 128 rows. A batch of short sequences takes the persistent kernel, whose
// programs pay their fixed costs (tensor maps, the first query tile, filling the ring) once and
// load the next tile while finishing this one: on an H100, 32/8 heads, d = 128, it took
// 0.56-0.58x the ping-pong kernel's time at 128 x 128 tokens, 0.65-0.71x at 64 x 256, 0.75-0.84x
// at 32 x 512 and 0.91-0.94x at 16 x 1k (causal and not). With few tiles per SM, as a single
// sequence has (and two stages instead of three), it was 1-4% slower from 1k tokens and 15% at
// 8k, so it takes sequences of up to 1k queries with at least four tiles per SM (head dims 64
// and 128: its two query tiles leave no room for 256). docs/performance.md, "Attention over
// many short sequences".
constexpr int64_t kGluonBlockM = 128;
constexpr int64_t kPersistentMaxQueries = 1024;
constexpr int64_t kPersistentTilesPerSm = 4;

bool persistent_pays(int64_t max_seqlen_q, int64_t d, int64_t tiles, int64_t sms) {
  return d <= 128 && max_seqlen_q <= kPersistentMaxQueries && tiles >= kPersistentTilesPerSm * sms;
}

// attention_gluon.launch_config(pingpong=True or persistent=True), mirrored.
bool run_gluon_prefill(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& out,
                       const at::Tensor& cu_q, const at::Tensor& cu_k, int64_t max_seqlen_q, double scale,
                       bool causal) {
  const int64_t heads = q.size(1), d = q.size(2), batch = cu_q.size(0) - 1;
  const int64_t q_blocks = cdiv(max_seqlen_q, kGluonBlockM), tiles = q_blocks * heads * batch;
  const int64_t sms = at::cuda::getDeviceProperties(q.device().index())->multiProcessorCount;
  const bool persistent = persistent_pays(max_seqlen_q, d, tiles, sms);
  const int64_t block_n = d == 256 ? 64 : 128;
  const int64_t stages = persistent ? (d == 64 ? 4 : 2) : (d == 256 ? 2 : 3);
  Slots<28> s;
  s.add_all(q, k, v, out, cu_q, cu_k, scale * kLog2e, q.stride(0), q.stride(1), k.stride(0), k.stride(1), v.stride(0),
            v.stride(1), out.stride(0), out.stride(1), q.size(0), k.size(0));
  try {
    if (persistent) {
      static const TritonJITFunction& kernel_fn = kernel("attention_gluon.py", "attention_fwd_persistent_kernel");
      s.add_all(heads, batch, q_blocks, heads / k.size(1), d, causal, kGluonBlockM, block_n, stages);
      s.launch(kernel_fn, launch_config(q, static_cast<unsigned>(std::min(tiles, sms)), 1, 1, 4));
    } else {
      static const TritonJITFunction& kernel_fn = kernel("attention_gluon.py", "attention_fwd_pingpong_kernel");
      s.add_all(heads / k.size(1), d, causal, kGluonBlockM, block_n, stages);
      s.launch(kernel_fn, launch_config(q, static_cast<unsigned>(q_blocks), static_cast<unsigned>(heads),
                                        static_cast<unsigned>(batch), 4));
    }
    return true;
  } catch (const std::exception& e) {
    if (!g_gluon_refused.exchange(true)) {
      TORCH_WARN(
          "flash_attn_varlen: the Gluon kernel for Hopper did not compile or load, prefill_kernel runs instead: ",
          e.what());
    }
    return false;
  }
}

}  // namespace

at::Tensor flash_attn_varlen(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                             const at::Tensor& cu_seqlens_q, const at::Tensor& cu_seqlens_k, int64_t max_seqlen_q,
                             int64_t max_seqlen_k, std::optional<double> softmax_scale, bool causal) {
  constexpr const char* op = "flash_attn_varlen";
  TORCH_CHECK(q.dim() == 3 && k.dim() == 3 && v.dim() == 3, op, ": q, k and v must be [tokens, heads, head_dim], got ",
              q.dim(), ", ", k.dim(), " and ", v.dim(), " dims");
  TORCH_CHECK(k.sym_size(0) == v.sym_size(0), op, ": k and v must have as many tokens, got ", to_text(k.sym_size(0)),
              " and ", to_text(v.sym_size(0)));
  check_heads(op, q, k, v, 2, 2);
  check_index(op, "cu_seqlens_q", cu_seqlens_q, 1);
  check_index(op, "cu_seqlens_k", cu_seqlens_k, 1);
  TORCH_CHECK(cu_seqlens_q.sym_size(0) == cu_seqlens_k.sym_size(0) && cu_seqlens_q.sym_size(0) >= 1, op,
              ": cu_seqlens_q and cu_seqlens_k must both be [batch + 1], got ", to_text(cu_seqlens_q.sym_sizes()),
              " and ", to_text(cu_seqlens_k.sym_sizes()));
  TORCH_CHECK(max_seqlen_q >= 0 && max_seqlen_k >= 0, op, ": max_seqlen_q and max_seqlen_k must be >= 0, got ",
              max_seqlen_q, " and ", max_seqlen_k);
  at::Tensor out = at::empty_symint(q.sym_sizes(), q.options());
  if (out.is_meta() || out.numel() == 0 || max_seqlen_q == 0) return out;
  check_device(op, q, {&k, &v, &cu_seqlens_q, &cu_seqlens_k});
  const int64_t batch = cu_seqlens_q.size(0) - 1;
  if (batch == 0) return out;
  const at::Tensor qc = with_dense_heads(q), kc = with_dense_heads(k), vc = with_dense_heads(v);
  const int64_t heads = q.size(1), group = heads / k.size(1), d = q.size(2);
  const double scale = softmax_scale.value_or(1.0 / std::sqrt(static_cast<double>(d)));
  TORCH_CHECK(batch <= 65535, op, ": at most 65535 sequences, got ", batch);
  const at::Tensor cu_q = cu_seqlens_q.contiguous(), cu_k = cu_seqlens_k.contiguous();
  torch_adapter::DeviceGuard guard(q);
  if (gluon_prefill_fits(qc, kc, vc, out, d) &&
      run_gluon_prefill(qc, kc, vc, out, cu_q, cu_k, max_seqlen_q, scale, causal)) {
    return out;
  }
  // Tiles by head dim: the query block and a stage of keys and values fit the registers and shared
  // memory of sm_80 and newer. Sequences of at most 512 queries take 64-row blocks on 4 warps with
  // two stages: a 128-token prefill has one or two key blocks per program, so what pays is more
  // programs resident per SM, not a deeper pipeline (0.97x SDPA-flash's time at 128 tokens where
  // 128-row blocks took 1.40x; 0.87x against 0.96x at 512; 2048 stays faster with 128 rows).
  const bool wide = d >= 256 || q.scalar_type() == at::kFloat;
  const bool short_queries = !wide && max_seqlen_q <= 512;
  const int64_t block_m = wide || short_queries ? 64 : 128, block_n = d >= 256 ? 32 : 64;
  const int warps = d >= 128 && !wide && !short_queries ? 8 : 4;
  const int stages = d >= 256 || short_queries ? 2 : 3;
  static const TritonJITFunction& kernel_fn = kernel("attention.py", "prefill_kernel");
  Slots<24> s;
  s.add_all(qc, kc, vc, out, cu_q, cu_k, scale * kLog2e, qc.stride(0), qc.stride(1), kc.stride(0), kc.stride(1),
            vc.stride(0), vc.stride(1), out.stride(0), out.stride(1), group, d, causal, std::string_view(precision(q)),
            block_m, block_n);
  s.launch(kernel_fn, launch_config(q, static_cast<unsigned>(cdiv(max_seqlen_q, block_m)), static_cast<unsigned>(heads),
                                    static_cast<unsigned>(batch), warps, stages));
  return out;
}

at::Tensor paged_attention(const at::Tensor& q, const at::Tensor& key_cache, const at::Tensor& value_cache,
                           const at::Tensor& block_tables, const at::Tensor& seq_lens,
                           std::optional<double> softmax_scale) {
  constexpr const char* op = "paged_attention";
  TORCH_CHECK(q.dim() == 3, op, ": q must be [batch, heads, head_dim], got ", q.dim(), " dims");
  TORCH_CHECK(key_cache.dim() == 4 && value_cache.dim() == 4 && key_cache.sym_sizes().equals(value_cache.sym_sizes()),
              op, ": key_cache and value_cache must be [blocks, block_size, kv_heads, head_dim] and of one shape, got ",
              to_text(key_cache.sym_sizes()), " and ", to_text(value_cache.sym_sizes()));
  check_heads(op, q, key_cache, value_cache, 2, 3);
  check_index(op, "block_tables", block_tables, 2);
  check_index(op, "seq_lens", seq_lens, 1);
  TORCH_CHECK(block_tables.sym_size(0) == q.sym_size(0) && seq_lens.sym_size(0) == q.sym_size(0), op,
              ": block_tables and seq_lens must have a row per sequence of q (", to_text(q.sym_size(0)), "), got ",
              to_text(block_tables.sym_sizes()), " and ", to_text(seq_lens.sym_sizes()));
  const int64_t page = key_cache.sym_size(1).guard_int(__FILE__, __LINE__);
  TORCH_CHECK(page >= 1 && (page & (page - 1)) == 0, op, ": block_size must be a power of two, got ", page);
  at::Tensor out = at::empty_symint(q.sym_sizes(), q.options());
  if (out.is_meta() || out.numel() == 0) return out;
  check_device(op, q, {&key_cache, &value_cache, &block_tables, &seq_lens});
  TORCH_CHECK(key_cache.stride(3) == 1 && key_cache.stride(2) == key_cache.size(3) && value_cache.stride(3) == 1 &&
                  value_cache.stride(2) == value_cache.size(3),
              op, ": the caches' [kv_heads, head_dim] must be dense");
  const at::Tensor qc = with_dense_heads(q);
  const at::Tensor tables = block_tables.stride(1) == 1 ? block_tables : block_tables.contiguous();
  const at::Tensor lens = seq_lens.contiguous();
  const int64_t batch = q.size(0), heads = q.size(1), kv_heads = key_cache.size(2), d = q.size(2);
  const int64_t group = heads / kv_heads;
  const int64_t group_pad = std::max<int64_t>(16, next_power_of_2(group));
  const double scale = softmax_scale.value_or(1.0 / std::sqrt(static_cast<double>(d)));
  // Partitions of the cache's capacity (no read of seq_lens on the host, so the call captures into
  // a CUDA graph): up to 512 tokens, fewer where that leaves the GPU less than twice full (one
  // sequence of 1k tokens has 8 KV heads: 16 programs of 512); capacities up to 256 in one pass.
  const int64_t capacity = block_tables.size(1) * page;
  const int64_t block_n = std::min<int64_t>(d >= 256 ? 32 : 64, std::max<int64_t>(16, next_power_of_2(capacity)));
  const int64_t enough = 2 * at::cuda::getDeviceProperties(q.device().index())->multiProcessorCount;
  int64_t partition = 512;
  while (partition > 64 && batch * kv_heads * cdiv(capacity, partition) < enough) partition /= 2;
  const bool split = capacity > 256 && capacity > partition;
  if (!split) partition = std::max<int64_t>(block_n, next_power_of_2(capacity));
  const int64_t partitions = cdiv(capacity, partition);
  at::Tensor part_m, part_l, part_acc;
  if (split) {
    auto f32 = q.options().dtype(at::kFloat);
    part_m = at::empty({batch, heads, partitions}, f32);
    part_l = at::empty({batch, heads, partitions}, f32);
    part_acc = at::empty({batch, heads, partitions, d}, f32);
  }
  static const TritonJITFunction& decode = kernel("attention.py", "paged_decode_kernel");
  static const TritonJITFunction& reduce = kernel("attention.py", "paged_reduce_kernel");
  torch_adapter::DeviceGuard guard(q);
  TORCH_CHECK(batch <= 2147483647 && kv_heads <= 65535 && partitions <= 65535, op,
              ": too many sequences or partitions");
  Slots<32> s;
  s.add_all(qc, key_cache, value_cache, tables, lens, out, part_m, part_l, part_acc, scale * kLog2e, partitions,
            qc.stride(0), qc.stride(1), key_cache.stride(0), key_cache.stride(1), key_cache.stride(2),
            value_cache.stride(0), value_cache.stride(1), value_cache.stride(2), tables.stride(0), out.stride(0),
            out.stride(1), page, group, group_pad, d, partition, block_n, split, std::string_view(precision(q)));
  launch_after(s, decode,
               launch_config(q, static_cast<unsigned>(batch), static_cast<unsigned>(kv_heads),
                             static_cast<unsigned>(partitions), 4, 2),
               q);
  if (split) {
    Slots<12> r;
    r.add_all(lens, out, part_m, part_l, part_acc, partitions, out.stride(0), out.stride(1), d, partition,
              std::min<int64_t>(next_power_of_2(partitions), 32));
    launch_after(r, reduce, launch_config(q, static_cast<unsigned>(batch), static_cast<unsigned>(heads), 1, 4), q);
  }
  return out;
}

void reshape_and_cache(const at::Tensor& key, const at::Tensor& value, const at::Tensor& key_cache,
                       const at::Tensor& value_cache, const at::Tensor& slot_mapping) {
  constexpr const char* op = "reshape_and_cache";
  TORCH_CHECK(key.dim() == 3 && value.dim() == 3 && key.sym_sizes().equals(value.sym_sizes()), op,
              ": key and value must be [tokens, kv_heads, head_dim] and of one shape, got ", to_text(key.sym_sizes()),
              " and ", to_text(value.sym_sizes()));
  TORCH_CHECK(key_cache.dim() == 4 && key_cache.sym_sizes().equals(value_cache.sym_sizes()), op,
              ": key_cache and value_cache must be [blocks, block_size, kv_heads, head_dim] and of one shape, got ",
              to_text(key_cache.sym_sizes()), " and ", to_text(value_cache.sym_sizes()));
  TORCH_CHECK(key_cache.sym_size(2) == key.sym_size(1) && key_cache.sym_size(3) == key.sym_size(2), op,
              ": the caches hold [", to_text(key_cache.sym_size(2)), ", ", to_text(key_cache.sym_size(3)),
              "] per token, the keys are [", to_text(key.sym_size(1)), ", ", to_text(key.sym_size(2)), "]");
  TORCH_CHECK(key.scalar_type() == key_cache.scalar_type() && value.scalar_type() == value_cache.scalar_type() &&
                  key.scalar_type() == value.scalar_type(),
              op, ": key, value and the caches must have one dtype, got ", c10::toString(key.scalar_type()), " and ",
              c10::toString(key_cache.scalar_type()));
  TORCH_CHECK(slot_mapping.dim() == 1 && slot_mapping.sym_size(0) == key.sym_size(0), op,
              ": slot_mapping must be [tokens] (", to_text(key.sym_size(0)), "), got ",
              to_text(slot_mapping.sym_sizes()));
  TORCH_CHECK(slot_mapping.scalar_type() == at::kLong || slot_mapping.scalar_type() == at::kInt, op,
              ": slot_mapping must be int64 or int32, got ", c10::toString(slot_mapping.scalar_type()));
  if (key.is_meta() || key_cache.is_meta() || key.numel() == 0) return;
  check_device(op, key, {&value, &key_cache, &value_cache, &slot_mapping});
  TORCH_CHECK(key_cache.stride(3) == 1 && key_cache.stride(2) == key_cache.size(3) && value_cache.stride(3) == 1 &&
                  value_cache.stride(2) == value_cache.size(3),
              op, ": the caches' [kv_heads, head_dim] must be dense");
  const at::Tensor kc = with_dense_heads(key), vc = with_dense_heads(value);
  const int64_t width = key.size(1) * key.size(2);
  const int64_t block = std::min<int64_t>(next_power_of_2(width), 1024);
  static const TritonJITFunction& k = kernel("attention.py", "reshape_and_cache_kernel");
  Slots<16> s;
  s.add_all(kc, vc, key_cache, value_cache, slot_mapping.contiguous(), key_cache.size(1), kc.stride(0), vc.stride(0),
            key_cache.stride(0), key_cache.stride(1), value_cache.stride(0), value_cache.stride(1), width, block);
  torch_adapter::DeviceGuard guard(key);
  s.launch(k, launch_config(key, static_cast<unsigned>(key.size(0)), static_cast<unsigned>(cdiv(width, block))));
}

void advance_step(const at::Tensor& input_tokens, const at::Tensor& sampled_token_ids,
                  const at::Tensor& input_positions, const at::Tensor& seq_lens, const at::Tensor& slot_mapping,
                  const at::Tensor& block_tables, int64_t block_size) {
  constexpr const char* op = "advance_step";
  const c10::SymInt n = input_tokens.sym_numel();
  TORCH_CHECK(input_tokens.dim() == 1 && input_positions.dim() == 1 && seq_lens.dim() == 1 && slot_mapping.dim() == 1 &&
                  input_positions.sym_size(0) == n && seq_lens.sym_size(0) == n && slot_mapping.sym_size(0) == n,
              op, ": input_tokens, input_positions, seq_lens and slot_mapping must be [num_seqs] of one length, got ",
              to_text(input_tokens.sym_sizes()), ", ", to_text(input_positions.sym_sizes()), ", ",
              to_text(seq_lens.sym_sizes()), " and ", to_text(slot_mapping.sym_sizes()));
  TORCH_CHECK(sampled_token_ids.sym_numel() == n && (sampled_token_ids.dim() == 1 || sampled_token_ids.dim() == 2), op,
              ": sampled_token_ids must be [num_seqs] or [num_seqs, 1] (", to_text(n), "), got ",
              to_text(sampled_token_ids.sym_sizes()));
  TORCH_CHECK(block_tables.dim() == 2 && block_tables.sym_size(0) == n, op,
              ": block_tables must be [num_seqs, blocks per sequence] (", to_text(n), " rows), got ",
              to_text(block_tables.sym_sizes()));
  TORCH_CHECK(block_size >= 1, op, ": block_size must be at least 1, got ", block_size);
  for (const at::Tensor* t :
       {&input_tokens, &sampled_token_ids, &input_positions, &seq_lens, &slot_mapping, &block_tables}) {
    TORCH_CHECK(t->scalar_type() == at::kLong || t->scalar_type() == at::kInt, op,
                ": every argument must be int32 or int64, got ", c10::toString(t->scalar_type()));
  }
  if (input_tokens.is_meta() || n == 0) return;
  check_device(op, input_tokens, {&sampled_token_ids, &input_positions, &seq_lens, &slot_mapping, &block_tables});
  for (const at::Tensor* t : {&input_tokens, &input_positions, &seq_lens, &slot_mapping}) {
    TORCH_CHECK(t->is_contiguous(), op, ": the tensors written in place must be contiguous");
  }
  TORCH_CHECK(block_tables.stride(1) == 1, op, ": block_tables' rows must be dense");
  const int64_t seqs = input_tokens.size(0);
  constexpr int64_t kBlock = 256;
  static const TritonJITFunction& k = kernel("attention.py", "advance_step_kernel");
  Slots<16> s;
  s.add_all(input_tokens, sampled_token_ids, input_positions, seq_lens, slot_mapping, block_tables, seqs, block_size,
            sampled_token_ids.stride(0), block_tables.stride(0), std::min<int64_t>(next_power_of_2(seqs), kBlock));
  torch_adapter::DeviceGuard guard(input_tokens);
  launch_after(s, k, launch_config(input_tokens, static_cast<unsigned>(cdiv(seqs, kBlock))), input_tokens);
}

}  // namespace triton_jit::ops
