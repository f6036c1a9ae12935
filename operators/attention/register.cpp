// The attention family's operators in the dispatcher: prefill and paged decode attention, the KV-cache write, and
// the step that advances a paged decode batch.
#include "common/aten_forms.h"
#include "common/op_family.h"

namespace triton_jit::ops {
namespace {

const bool kAttentionRegistered = [] {
  (new OpFamily())  // never destroyed: the registrations last for the process
      ->op(
          "flash_attn_varlen(Tensor q, Tensor k, Tensor v, Tensor cu_seqlens_q, Tensor cu_seqlens_k, int max_seqlen_q, "
          "int max_seqlen_k, float? softmax_scale=None, bool causal=False) -> Tensor",
          &flash_attn_varlen)
      .op("paged_attention(Tensor q, Tensor key_cache, Tensor value_cache, Tensor block_tables, Tensor seq_lens, "
          "float? softmax_scale=None) -> Tensor",
          &paged_attention)
      .op("reshape_and_cache(Tensor key, Tensor value, Tensor(a!) key_cache, Tensor(b!) value_cache, Tensor "
          "slot_mapping) -> ()",
          &reshape_and_cache)
      .op("advance_step(Tensor(a!) input_tokens, Tensor sampled_token_ids, Tensor(b!) input_positions, Tensor(c!) "
          "seq_lens, Tensor(d!) slot_mapping, Tensor block_tables, int block_size) -> ()",
          &advance_step);
  return true;
}();

}  // namespace
}  // namespace triton_jit::ops
