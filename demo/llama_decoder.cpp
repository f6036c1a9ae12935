// triton_jit_llama: a Llama-style decoder run from C++ on the operator library, checked against
// the same model written in PyTorch eager (ATen ops, as Hugging Face's Llama is written), both in
// this process with the same random weights at the layer shapes of Llama-3-8B or Qwen2.5-7B.
//
//   ours: embedding, per layer rms_norm, qkv, rotary with the KV-cache write (one launch),
//   attention (flash_attn_varlen at prefill, paged_attention at decode), o-proj, fused residual
//   rms_norm, gate/up, silu_and_mul, down; the final norm, lm_head,
//   greedy argmax and top-k sampling. The linear layers run on cuBLAS or on our GEMM as the
//   stand-ins route them (common/stand_in_policy.h). The decode step, the next step's inputs
//   included (advance_step), is captured once into a CUDA graph and replayed.
//   eager: a dense KV cache, rms_norm and rotary written in ATen ops, SDPA, no graph.
//
// Prefill of `batch` prompts of `prompt` tokens, then `steps` decode steps; the eager model reads
// the tokens ours chose (teacher forcing) so that every step's logits compare. Prints prefill
// tokens/s, decode tokens/s and per-token latency of both, and what a decode step reads (weights
// and KV cache) over its time beside the device's read stream (ATen's sum of 2 GiB), the memory's
// limit for a step that reads each byte once. Exit code 0 when the logits agree.
//   triton_jit_llama [--model llama-3-8b|qwen2.5-7b | --config config.json] [--layers N] [--batch B[,B...]]
//                    [--context P[,P...]] [--steps S] [--timeline]  (--prompt P: one context)
// --config reads the shapes of a Llama, Mistral, Qwen2 or Qwen3 config.json (demo/model_config.h):
// Qwen3's per-head q/k norms, tied embeddings and "linear" or "llama3" rope scaling are run;
// other rope scaling and sliding windows are left out, here and in the eager model alike.
// A profiler's record of one decode step, with and without dependent launches, gives the idle
// time between its kernels (--timeline: every kernel's start, duration and gap).
#include <ATen/Context.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/embedding.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/full.h>
#include <ATen/ops/linear.h>
#include <ATen/ops/multinomial.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/outer.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/randperm.h>
#include <ATen/ops/rsqrt.h>
#include <ATen/ops/scaled_dot_product_attention.h>
#include <ATen/ops/silu.h>
#include <ATen/ops/softmax.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/topk.h>
#include <ATen/ops/zeros.h>
#include <c10/cuda/CUDAGuard.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <triton_jit/torch.h>

#include "common/ops.h"
#include "common/stand_in_policy.h"
#include "kernel_timeline.h"
#include "model_config.h"

namespace {

namespace ops = triton_jit::ops;
namespace demo = triton_jit::demo;
using at::Tensor;
using demo::ModelShape;

constexpr int64_t kPage = 16;

struct Layer {
  Tensor norm_in, w_qkv, b_qkv, w_o, norm_post, w_gate_up, w_down;  // b_qkv: undefined without biases
  Tensor q_norm, k_norm;                                            // [head_dim], Qwen3's; else undefined
};

struct Weights {
  ModelShape m;
  Tensor embedding, final_norm, lm_head, cos, sin;  // cos, sin: [max_position, head_dim / 2] float32
  std::vector<Layer> layers;
};

Tensor qkv_projection(const Layer& layer, const Tensor& h) {  // the eager model's
  return layer.b_qkv.defined() ? at::linear(h, layer.w_qkv, layer.b_qkv) : at::linear(h, layer.w_qkv);
}

// How a step is built: with the fused ops or the ones they replace (only counted), and with the
// products as the stand-ins route them or every one on our GEMM (timed beside it: under dependent
// launches a product on ours can overlap its neighbours, one on cuBLAS cannot).
struct StepForm {
  bool fused = true;
  bool products_ours = false;
};

// Ours: x [rows, in] through a linear layer as the operator library's stand-ins run it, our GEMM
// where the H200 measured it faster than cuBLAS for the shape class (common/stand_in_policy.h:
// the lm_head and the down projection at decode), ATen's elsewhere; or ours always.
Tensor ours_linear(const Tensor& x, const Tensor& w, const Tensor& bias = {}, bool always_ours = false) {
  const ops::MatmulShape shape{1, x.size(0), w.size(0), w.size(1), static_cast<int64_t>(x.element_size())};
  if (always_ours || ops::route_matmul(shape) == ops::Route::kOurs)
    return bias.defined() ? ops::addmm(bias, x, w.t()) : ops::mm(x, w.t());
  return bias.defined() ? at::linear(x, w, bias) : at::linear(x, w);
}

Weights make_weights(const ModelShape& m, int64_t layers, int64_t max_position) {
  auto bf16 = at::TensorOptions().device(at::kCUDA).dtype(at::kBFloat16);
  auto linear = [&](int64_t out, int64_t in) { return at::randn({out, in}, bf16) * 0.02; };
  auto norm = [&](int64_t size) { return 1 + at::randn({size}, bf16) * 0.1; };
  const int64_t qkv = (m.heads + 2 * m.kv_heads) * m.head_dim;
  Weights w{m};
  w.embedding = at::randn({m.vocab, m.hidden}, bf16);
  for (int64_t l = 0; l < layers; ++l) {
    w.layers.push_back({norm(m.hidden), linear(qkv, m.hidden), m.qkv_bias ? at::randn({qkv}, bf16) * 0.02 : Tensor(),
                        linear(m.hidden, m.heads * m.head_dim), norm(m.hidden), linear(2 * m.mlp, m.hidden),
                        linear(m.hidden, m.mlp), m.qk_norm ? norm(m.head_dim) : Tensor(),
                        m.qk_norm ? norm(m.head_dim) : Tensor()});
  }
  w.final_norm = norm(m.hidden);
  w.lm_head = m.tied_embeddings ? w.embedding : linear(m.vocab, m.hidden);
  auto f32 = bf16.dtype(at::kFloat);
  const std::vector<double> frequencies = demo::rope_inverse_frequencies(m);
  const Tensor inv_freq = at::tensor(frequencies, at::kDouble).to(f32);
  const Tensor angles = at::outer(at::arange(max_position, f32), inv_freq);
  w.cos = angles.cos();
  w.sin = angles.sin();
  return w;
}

// The bytes a decode step must read at least: every weight once (the embedding's rows aside) and
// each sequence's keys and values up to `context` positions.
double step_bytes(const Weights& w, int64_t batch, int64_t context) {
  double weights = static_cast<double>(w.lm_head.nbytes() + w.final_norm.nbytes());
  for (const Layer& l : w.layers) {
    weights += static_cast<double>(l.norm_in.nbytes() + l.w_qkv.nbytes() + l.w_o.nbytes() + l.norm_post.nbytes() +
                                   l.w_gate_up.nbytes() + l.w_down.nbytes());
    if (l.b_qkv.defined()) weights += static_cast<double>(l.b_qkv.nbytes());
    if (l.q_norm.defined()) weights += static_cast<double>(l.q_norm.nbytes() + l.k_norm.nbytes());
  }
  const double kv = 2.0 * static_cast<double>(w.layers.size() * batch * context * w.m.kv_heads * w.m.head_dim) * 2;
  return weights + kv;
}

// ---- ours: the operator library, a paged cache ------------------------------------------------

struct PagedCache {
  std::vector<Tensor> keys, values;  // per layer [blocks, kPage, kv_heads, head_dim]
  Tensor block_tables;               // [batch, blocks per sequence] int32
};

PagedCache make_cache(const ModelShape& m, int64_t layers, int64_t batch, int64_t max_context) {
  const int64_t per_seq = (max_context + kPage - 1) / kPage;
  auto bf16 = at::TensorOptions().device(at::kCUDA).dtype(at::kBFloat16);
  PagedCache c;
  for (int64_t l = 0; l < layers; ++l) {
    c.keys.push_back(at::zeros({batch * per_seq, kPage, m.kv_heads, m.head_dim}, bf16));
    c.values.push_back(at::zeros({batch * per_seq, kPage, m.kv_heads, m.head_dim}, bf16));
  }
  // blocks handed out shuffled, as an allocator's free list would after a while
  c.block_tables = at::randperm(batch * per_seq, bf16.dtype(at::kLong)).view({batch, per_seq}).to(at::kInt);
  return c;
}

Tensor slots_of(const Tensor& block_tables, const Tensor& positions /* [batch, n] int64 */) {
  return block_tables.gather(1, positions.div(kPage, "floor")) * kPage + positions.remainder(kPage);  // int64
}

// The layers over `tokens` [T] at `positions` [T]; attention is the caller's (prefill or decode).
// Returns the final hidden state, normalised, [T, hidden].
template <class Attention>
Tensor run_layers(const Weights& w, PagedCache& cache, const Tensor& tokens, const Tensor& positions,
                  const Tensor& slots, Attention&& attention, StepForm form = {}) {
  const ModelShape& m = w.m;
  const int64_t t = tokens.size(0), q_size = m.heads * m.head_dim, kv_size = m.kv_heads * m.head_dim;
  Tensor x = ops::embedding(w.embedding, tokens);
  Tensor h = ops::rms_norm(x, {m.hidden}, w.layers[0].norm_in, m.rms_norm_eps);
  for (size_t l = 0; l < w.layers.size(); ++l) {
    const Layer& layer = w.layers[l];
    const Tensor qkv = ours_linear(h, layer.w_qkv, layer.b_qkv, form.products_ours);
    const Tensor v = qkv.narrow(1, q_size + kv_size, kv_size).view({t, m.kv_heads, m.head_dim});
    Tensor q_in = qkv.narrow(1, 0, q_size).view({t, m.heads, m.head_dim});
    Tensor k_in = qkv.narrow(1, q_size, kv_size).view({t, m.kv_heads, m.head_dim});
    if (layer.q_norm.defined()) {  // Qwen3: each head's query and key normalised before the rotation
      q_in = ops::rms_norm(q_in, {m.head_dim}, layer.q_norm, m.rms_norm_eps);
      k_in = ops::rms_norm(k_in, {m.head_dim}, layer.k_norm, m.rms_norm_eps);
    }
    Tensor q, k;
    if (form.fused) {
      std::tie(q, k) =
          ops::rotary_and_cache(q_in, k_in, v, w.cos, w.sin, positions, cache.keys[l], cache.values[l], slots);
    } else {  // the ops the fused ones replace, for the kernel count beside them
      q = ops::rotary_embedding(q_in, w.cos, w.sin, positions);
      k = ops::rotary_embedding(k_in, w.cos, w.sin, positions);
      ops::reshape_and_cache(k, v, cache.keys[l], cache.values[l], slots);
    }
    const Tensor a = attention(q, k, v, cache.keys[l], cache.values[l]);
    auto [h2, x2] = ops::fused_add_rms_norm(ours_linear(a.reshape({t, q_size}), layer.w_o, {}, form.products_ours), x,
                                            layer.norm_post, m.rms_norm_eps);
    const Tensor gate_up = ours_linear(h2, layer.w_gate_up, {}, form.products_ours);
    const Tensor down = ours_linear(ops::silu_and_mul(gate_up), layer.w_down, {}, form.products_ours);
    const Tensor& next_norm = l + 1 < w.layers.size() ? w.layers[l + 1].norm_in : w.final_norm;
    std::tie(h, x) = ops::fused_add_rms_norm(down, x2, next_norm, m.rms_norm_eps);
  }
  return h;
}

// ---- eager: the same model as PyTorch code writes it --------------------------------------------

Tensor rms_norm_eager(const Tensor& x, const Tensor& weight, double eps) {
  const Tensor xf = x.to(at::kFloat);
  return weight * (xf * at::rsqrt(xf.pow(2).mean(-1, true) + eps)).to(x.scalar_type());
}

Tensor rotate_eager(const Tensor& x /* [B, heads, S, D] */, const Tensor& cos, const Tensor& sin) {
  const int64_t half = x.size(-1) / 2;
  const Tensor rotated = at::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
  return x * cos + rotated * sin;
}

struct EagerModel {
  const Weights& w;
  std::vector<Tensor> keys, values;  // per layer [B, kv_heads, max_context, head_dim]
  Tensor cos_full, sin_full;         // [max_position, head_dim] bfloat16

  EagerModel(const Weights& weights, int64_t batch, int64_t max_context) : w(weights) {
    auto bf16 = at::TensorOptions().device(at::kCUDA).dtype(at::kBFloat16);
    for (size_t l = 0; l < w.layers.size(); ++l) {
      keys.push_back(at::zeros({batch, w.m.kv_heads, max_context, w.m.head_dim}, bf16));
      values.push_back(at::zeros({batch, w.m.kv_heads, max_context, w.m.head_dim}, bf16));
    }
    cos_full = at::cat({w.cos, w.cos}, -1).to(at::kBFloat16);
    sin_full = at::cat({w.sin, w.sin}, -1).to(at::kBFloat16);
  }

  // tokens [B, S] at positions start .. start + S - 1; logits of the last position [B, vocab].
  Tensor forward(const Tensor& tokens, int64_t start) {
    const ModelShape& m = w.m;
    const int64_t b = tokens.size(0), s = tokens.size(1);
    const Tensor cos = cos_full.narrow(0, start, s), sin = sin_full.narrow(0, start, s);
    Tensor x = at::embedding(w.embedding, tokens);
    for (size_t l = 0; l < w.layers.size(); ++l) {
      const Layer& layer = w.layers[l];
      const Tensor qkv = qkv_projection(layer, rms_norm_eager(x, layer.norm_in, m.rms_norm_eps));
      auto split = qkv.split({m.heads * m.head_dim, m.kv_heads * m.head_dim, m.kv_heads * m.head_dim}, -1);
      Tensor q_in = split[0].view({b, s, m.heads, m.head_dim}), k_in = split[1].view({b, s, m.kv_heads, m.head_dim});
      if (layer.q_norm.defined()) {
        q_in = rms_norm_eager(q_in, layer.q_norm, m.rms_norm_eps);
        k_in = rms_norm_eager(k_in, layer.k_norm, m.rms_norm_eps);
      }
      const Tensor q = rotate_eager(q_in.transpose(1, 2), cos, sin);
      const Tensor k = rotate_eager(k_in.transpose(1, 2), cos, sin);
      keys[l].narrow(2, start, s).copy_(k);
      values[l].narrow(2, start, s).copy_(split[2].view({b, s, m.kv_heads, m.head_dim}).transpose(1, 2));
      const Tensor k_all = keys[l].narrow(2, 0, start + s).repeat_interleave(m.heads / m.kv_heads, 1);
      const Tensor v_all = values[l].narrow(2, 0, start + s).repeat_interleave(m.heads / m.kv_heads, 1);
      const Tensor a = at::scaled_dot_product_attention(q, k_all, v_all, {}, 0.0, /*is_causal=*/s > 1);
      x = x + at::linear(a.transpose(1, 2).reshape({b, s, m.heads * m.head_dim}), layer.w_o);
      auto gate_up = at::linear(rms_norm_eager(x, layer.norm_post, m.rms_norm_eps), layer.w_gate_up).chunk(2, -1);
      x = x + at::linear(at::silu(gate_up[0]) * gate_up[1], layer.w_down);
    }
    return at::linear(rms_norm_eager(x.select(1, s - 1), w.final_norm, m.rms_norm_eps), w.lm_head);
  }
};

double relative_error(const Tensor& ours, const Tensor& reference) {
  const Tensor r = reference.to(at::kFloat);
  return ((ours.to(at::kFloat) - r).abs().max() / r.abs().max()).item<double>();
}

struct Options {
  ModelShape model = demo::known_model("llama-3-8b");
  int64_t layers = 4, steps = 32;
  std::vector<int64_t> batches = {1, 32};
  std::vector<int64_t> contexts = {128};  // prompt lengths: each batch size runs at each
  bool timeline = false;                  // print every device event of one step, both graphs
};

// Bytes read per second by ATen's sum of 2 GiB of bfloat16: the rate a step that reads each
// byte once cannot beat.
double read_stream_bytes_per_s() {
  const Tensor x = at::ones({int64_t{1} << 30}, at::TensorOptions().device(at::kCUDA).dtype(at::kBFloat16));
  at::sum(x, at::kFloat);
  at::cuda::CUDAEvent start(cudaEventDefault), end(cudaEventDefault);
  start.record();
  for (int i = 0; i < 10; ++i) at::sum(x, at::kFloat);
  end.record();
  end.synchronize();
  return static_cast<double>(x.nbytes()) / (start.elapsed_time(end) / 10 * 1e-3);
}

// What one captured decode step launches, read from a graph captured only to be counted (never
// replayed): the kernels, and the copies and memsets between them.
struct GraphNodes {
  size_t kernels = 0, copies = 0;
};
template <class Step>
GraphNodes nodes_of_step(Step& step) {
  at::cuda::CUDAGraph counted(/*keep_graph=*/true);
  counted.capture_begin();
  step();
  counted.capture_end();
  size_t n = 0;
  AT_CUDA_CHECK(cudaGraphGetNodes(counted.raw_cuda_graph(), nullptr, &n));
  std::vector<cudaGraphNode_t> nodes(n);
  AT_CUDA_CHECK(cudaGraphGetNodes(counted.raw_cuda_graph(), nodes.data(), &n));
  GraphNodes r;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    AT_CUDA_CHECK(cudaGraphNodeGetType(node, &type));
    if (type == cudaGraphNodeTypeKernel) ++r.kernels;
    if (type == cudaGraphNodeTypeMemcpy || type == cudaGraphNodeTypeMemset) ++r.copies;
  }
  return r;
}

// One batch size at one prompt length: prefill, check, decode graph, check, time. Returns whether
// the logits agreed.
bool run_batch(const Weights& w, const Options& o, int64_t batch, int64_t prompt, double read_stream) {
  const int64_t max_context = prompt + o.steps + 1;
  auto long_options = at::TensorOptions().device(at::kCUDA).dtype(at::kLong);
  PagedCache cache = make_cache(w.m, o.layers, batch, max_context);
  EagerModel eager(w, batch, max_context);
  const Tensor prompts = at::randint(0, w.m.vocab, {batch, prompt}, long_options);

  // ---- prefill: a varlen batch (equal lengths here, so that the eager model batches them too)
  const Tensor positions = at::arange(prompt, long_options).repeat({batch, 1});
  const Tensor prefill_slots = slots_of(cache.block_tables, positions).view(-1);
  const Tensor cu = at::arange(0, (batch + 1) * prompt, prompt, long_options.dtype(at::kInt));
  auto prefill = [&] {
    auto attention = [&](const Tensor& q, const Tensor& k, const Tensor& v, const Tensor&, const Tensor&) {
      return ops::flash_attn_varlen(q, k, v, cu, cu, prompt, prompt, std::nullopt, true);
    };
    const Tensor h = run_layers(w, cache, prompts.view(-1), positions.view(-1), prefill_slots, attention);
    return at::linear(h.view({batch, prompt, w.m.hidden}).select(1, prompt - 1), w.lm_head);
  };
  Tensor logits = prefill();
  const Tensor logits_eager = eager.forward(prompts, 0);
  bool ok = true;
  const double prefill_error = relative_error(logits, logits_eager);
  ok = ok && prefill_error < 0.05;

  // top-k sampling of the first token: our top-k's values are ATen's exactly
  auto [top_values, top_indices] = ops::topk(logits, 50);
  const Tensor sampled = top_indices.gather(1, at::multinomial(at::softmax(top_values.to(at::kFloat) / 0.7, -1), 1));
  const bool topk_same = at::equal(top_values, std::get<0>(at::topk(logits, 50)));
  ok = ok && topk_same;

  // ---- decode: static buffers, one step captured into a graph that also advances the positions
  Tensor tokens = ops::argmax(logits, -1);  // greedy
  Tensor step_positions = at::full({batch}, prompt, long_options);
  Tensor seq_lens = at::full({batch}, prompt + 1, long_options.dtype(at::kInt));
  Tensor slots = slots_of(cache.block_tables, step_positions.unsqueeze(1)).view(-1);
  Tensor step_logits = at::empty({batch, w.m.vocab}, logits.options());
  auto step_with = [&](StepForm form) {
    auto attention = [&](const Tensor& q, const Tensor&, const Tensor&, const Tensor& keys, const Tensor& values) {
      return ops::paged_attention(q, keys, values, cache.block_tables, seq_lens);
    };
    const Tensor h = run_layers(w, cache, tokens, step_positions, slots, attention, form);
    step_logits.copy_(ours_linear(h, w.lm_head, {}, form.products_ours));
    if (form.fused) {
      // greedy: the next inputs (token, position, length, cache slot) in one launch, as vLLM's
      ops::advance_step(tokens, ops::argmax(step_logits, -1), step_positions, seq_lens, slots, cache.block_tables,
                        kPage);
    } else {
      tokens.copy_(ops::argmax(step_logits, -1));
      step_positions.add_(1);
      seq_lens.add_(1);
      slots.copy_(slots_of(cache.block_tables, step_positions.unsqueeze(1)).view(-1));
    }
  };
  auto step = [&] { step_with({}); };
  auto step_unfused = [&] { step_with({.fused = false}); };
  auto step_products_ours = [&] { step_with({.products_ours = true}); };
  // The first step runs eagerly (compiles what the graph will launch); the graph then holds one step.
  at::cuda::CUDAGraph graph, graph_dependent, graph_products_ours;
  {
    c10::cuda::CUDAStreamGuard side(at::cuda::getStreamFromPool());
    const Tensor fed = tokens.clone();
    step();
    at::cuda::getCurrentCUDAStream().synchronize();
    const Tensor first_reference = eager.forward(fed.unsqueeze(1), prompt);
    double worst = relative_error(step_logits, first_reference);
    int64_t agree = 0, near_tie = 0, compared = 0;
    // A greedy token of ours is the eager model's argmax, or within the logits' tolerance of it (a
    // near tie that rounding may order either way).
    auto count = [&](const Tensor& reference, const Tensor& chosen) {
      const Tensor r = reference.to(at::kFloat);
      const Tensor best = r.amax(-1);
      const Tensor ours_logit = r.gather(1, chosen.unsqueeze(1)).squeeze(1);
      agree += (r.argmax(-1) == chosen).sum().item<int64_t>();
      near_tie += (ours_logit >= best - 0.05 * r.abs().max()).sum().item<int64_t>();
      compared += reference.size(0);
    };
    count(first_reference, tokens);
    {
      // One step with dependent launches, outside any capture, so that their variants are compiled
      // and loaded before the graph below captures them; the step's inputs are then put back (the
      // cache slot it wrote is written again by the next step).
      // The unfused step (counted below, never timed) likewise.
      const Tensor tokens_before = tokens.clone(), positions_before = step_positions.clone();
      const Tensor seq_lens_before = seq_lens.clone(), slots_before = slots.clone();
      auto put_back = [&] {
        tokens.copy_(tokens_before);
        step_positions.copy_(positions_before);
        seq_lens.copy_(seq_lens_before);
        slots.copy_(slots_before);
      };
      {
        ops::DependentLaunches dependent;
        step();
        put_back();
        step_products_ours();  // tunes our GEMM for the shapes the stand-ins give cuBLAS
        put_back();
      }
      step_unfused();
      put_back();
    }
    graph.capture_begin();
    step();
    graph.capture_end();
    const GraphNodes launched = nodes_of_step(step), unfused = nodes_of_step(step_unfused);
    std::printf(
        "batch %ld: one decode step's graph launches %zu kernels and %zu copies or memsets (%ld layers); with the ops "
        "the fused ones replace (rotary_embedding twice and reshape_and_cache, ATen's step bookkeeping) %zu kernels "
        "and %zu copies or memsets\n",
        static_cast<long>(batch), launched.kernels, launched.copies, static_cast<long>(o.layers), unfused.kernels,
        unfused.copies);
    {
      // The same step with each of our kernels that can launched dependent on the one before it
      // (ops::DependentLaunches), timed beside it below.
      ops::DependentLaunches dependent;
      graph_dependent.capture_begin();
      step();
      graph_dependent.capture_end();
      graph_products_ours.capture_begin();
      step_products_ours();
      graph_products_ours.capture_end();
    }
    for (int64_t s = 1; s < o.steps; ++s) {
      const Tensor fed_now = tokens.clone();
      graph.replay();
      const Tensor reference = eager.forward(fed_now.unsqueeze(1), prompt + s);
      worst = std::max(worst, relative_error(step_logits, reference));
      count(reference, tokens);
    }
    at::cuda::getCurrentCUDAStream().synchronize();
    const double agreement = static_cast<double>(agree) / static_cast<double>(compared);
    ok = ok && worst < 0.05 && near_tie == compared;
    std::string first_tokens;
    const Tensor sampled_cpu = sampled.view(-1).cpu();
    for (int64_t b = 0; b < std::min<int64_t>(batch, 4); ++b)
      first_tokens += fmt::format(" {}", sampled_cpu[b].item<int64_t>());
    std::printf(
        "batch %ld: prefill logits relative error %.4f; decode (%ld steps, CUDA graph) worst %.4f; greedy "
        "tokens equal to the eager model's argmax: %.1f%% (the rest near ties: %s); top-k values equal to ATen's: %s; "
        "first tokens "
        "sampled from the top 50:%s\n",
        static_cast<long>(batch), prefill_error, static_cast<long>(o.steps), worst, 100 * agreement,
        near_tie == compared ? "yes" : "no", topk_same ? "yes" : "no", first_tokens.c_str());
  }

  // ---- timing, on one stream, events around repeated calls
  auto time_ms = [](int repeats, auto&& fn) {
    fn();
    at::cuda::CUDAEvent start(cudaEventDefault), end(cudaEventDefault);
    start.record();
    for (int i = 0; i < repeats; ++i) fn();
    end.record();
    end.synchronize();
    return start.elapsed_time(end) / repeats;
  };
  c10::cuda::CUDAStreamGuard timing(at::cuda::getStreamFromPool());
  const double prefill_ours = time_ms(5, [&] { prefill(); });
  const double prefill_eager = time_ms(5, [&] { eager.forward(prompts, 0); });
  // decode: replays of the graph against eager steps at the same positions (the cache slots
  // beyond the prompt are rewritten; their values do not matter for timing)
  const int repeats = 20;
  const Tensor fed = tokens.clone();
  auto from_prompt = [&] {  // the step's inputs as they were after the prompt
    tokens.copy_(fed);
    step_positions.fill_(prompt);
    seq_lens.fill_(prompt + 1);
    slots.copy_(slots_of(cache.block_tables, step_positions.unsqueeze(1)).view(-1));
  };
  from_prompt();
  graph.replay();
  const Tensor logits_serial = step_logits.clone();
  from_prompt();
  graph_dependent.replay();
  const bool dependent_same = at::equal(step_logits, logits_serial);
  ok = ok && dependent_same;
  from_prompt();
  graph_products_ours.replay();
  const double products_ours_error = relative_error(step_logits, logits_serial);
  // other GEMM kernels round the layers' outputs differently: the tolerance held against eager
  ok = ok && products_ours_error < 0.05;
  from_prompt();
  const double step_ours = time_ms(repeats, [&] { graph.replay(); });
  from_prompt();
  const double step_dependent = time_ms(repeats, [&] { graph_dependent.replay(); });
  from_prompt();
  const double step_products_ours_ms = time_ms(repeats, [&] { graph_products_ours.replay(); });
  const Tensor one = tokens.unsqueeze(1).clone();
  const double step_eager = time_ms(repeats, [&] { eager.forward(one, prompt); });
  std::printf("batch %ld: prefill %ld tokens: ours %.2f ms (%.0f tokens/s), eager %.2f ms (%.0f tokens/s), %.2fx\n",
              static_cast<long>(batch), static_cast<long>(batch * prompt), prefill_ours,
              batch * prompt / prefill_ours * 1e3, prefill_eager, batch * prompt / prefill_eager * 1e3,
              prefill_ours / prefill_eager);
  std::printf(
      "batch %ld: decode step at context %ld: ours (graph) %.3f ms (%.0f tokens/s), eager %.3f ms "
      "(%.0f tokens/s), %.2fx\n",
      static_cast<long>(batch), static_cast<long>(prompt + 1), step_ours, batch / step_ours * 1e3, step_eager,
      batch / step_eager * 1e3, step_ours / step_eager);
  std::printf(
      "batch %ld: decode step at context %ld with dependent launches: %.3f ms, %.3fx the step without; logits the "
      "same bits: %s\n",
      static_cast<long>(batch), static_cast<long>(prompt + 1), step_dependent, step_dependent / step_ours,
      dependent_same ? "yes" : "NO");
  std::printf(
      "batch %ld: decode step at context %ld with every product on our GEMM and dependent launches: %.3f ms, %.3fx "
      "the step without; logits within %.4f of it\n",
      static_cast<long>(batch), static_cast<long>(prompt + 1), step_products_ours_ms, step_products_ours_ms / step_ours,
      products_ours_error);
  const std::pair<double, const char*> fastest = std::min(
      {std::pair{step_ours, "routed products"}, std::pair{step_dependent, "routed products, dependent launches"},
       std::pair{step_products_ours_ms, "every product ours, dependent launches"}});
  std::printf("batch %ld: decode step at context %ld: fastest of ours %.3f ms (%.0f tokens/s): %s\n",
              static_cast<long>(batch), static_cast<long>(prompt + 1), fastest.first, batch / fastest.first * 1e3,
              fastest.second);
  {
    // One replay of each graph as the profiler records it: the idle time between kernels is what
    // dependent launches can hide.
    auto replay = [&](at::cuda::CUDAGraph& g) {
      return demo::record_timeline(from_prompt, [&] {
        g.replay();
        at::cuda::getCurrentCUDAStream().synchronize();
      });
    };
    const demo::KernelTimeline serial = replay(graph), dependent = replay(graph_dependent),
                               products_ours = replay(graph_products_ours);
    for (const auto& [t, label] : {std::pair{&serial, "serial"}, std::pair{&dependent, "dependent launches"},
                                   std::pair{&products_ours, "every product ours, dependent launches"}}) {
      if (!t->unavailable.empty()) {
        std::printf("batch %ld: decode step's timeline (%s): not recorded: %s\n", static_cast<long>(batch), label,
                    t->unavailable.c_str());
        continue;
      }
      std::printf(
          "batch %ld: decode step's timeline at context %ld (%s, profiler): %zu device events over %.1f us, idle "
          "%.1f us between them, %zu started before the one before ended\n",
          static_cast<long>(batch), static_cast<long>(prompt + 1), label, t->events.size(), t->span_us(), t->idle_us(),
          t->overlapped());
    }
    if (o.timeline && serial.unavailable.empty() && dependent.unavailable.empty()) {
      const std::string prefix = fmt::format("  b{} c{}", batch, prompt + 1);
      demo::print_timelines(prefix.c_str(), serial, "serial", dependent, "dependent launches");
    }
  }
  const double bytes = step_bytes(w, batch, prompt + 1);
  std::printf(
      "batch %ld: decode step at context %ld reads %.3f GB (weights and KV cache): ours %.2f TB/s (its fastest form), "
      "%.0f%% of the read stream (%.2f TB/s); eager %.2f TB/s\n",
      static_cast<long>(batch), static_cast<long>(prompt + 1), bytes / 1e9, bytes / (fastest.first * 1e-3) / 1e12,
      100 * bytes / (fastest.first * 1e-3) / read_stream, read_stream / 1e12, bytes / (step_eager * 1e-3) / 1e12);
  return ok;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--timeline") {
      o.timeline = true;
      continue;
    }
    if (i + 1 == argc) throw std::invalid_argument(flag + ": expected a value after it");
    const std::string value = argv[++i];
    auto list = [&] {
      std::vector<int64_t> values;
      for (size_t start = 0; start <= value.size();) {
        const size_t comma = std::min(value.find(',', start), value.size());
        values.push_back(std::stoll(value.substr(start, comma - start)));
        start = comma + 1;
      }
      return values;
    };
    if (flag == "--layers") {
      o.layers = std::stoll(value);
    } else if (flag == "--prompt") {
      o.contexts = {std::stoll(value)};
    } else if (flag == "--context") {
      o.contexts = list();
    } else if (flag == "--steps") {
      o.steps = std::stoll(value);
    } else if (flag == "--batch") {
      o.batches = list();
    } else if (flag == "--model") {
      o.model = demo::known_model(value);
    } else if (flag == "--config") {
      std::ifstream file(value);
      if (!file) throw std::invalid_argument("--config: cannot read " + value);
      std::ostringstream text;
      text << file.rdbuf();
      o.model = demo::model_from_config(text.str(), value);
    } else {
      throw std::invalid_argument("unknown option " + flag);
    }
  }
  const bool positive = std::all_of(o.batches.begin(), o.batches.end(), [](int64_t v) { return v >= 1; }) &&
                        std::all_of(o.contexts.begin(), o.contexts.end(), [](int64_t v) { return v >= 1; });
  if (o.layers < 1 || o.steps < 2 || !positive || o.batches.empty() || o.contexts.empty()) {
    throw std::invalid_argument("--layers, --batch and --context (--prompt) must be >= 1, --steps >= 2");
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    if (!triton_jit::cuda_available()) {
      std::printf("triton_jit_llama: no GPU, launching was skipped\n");
      return 0;
    }
    at::manual_seed(0);
    const ModelShape& m = o.model;
    const int64_t longest = *std::max_element(o.contexts.begin(), o.contexts.end());
    const Weights w = make_weights(m, o.layers, longest + o.steps + 2);
    const double read_stream = read_stream_bytes_per_s();
    std::string contexts;
    for (int64_t c : o.contexts) contexts += fmt::format("{}{}", contexts.empty() ? "" : ", ", c);
    std::string extras = m.qkv_bias ? ", q/k/v biases" : "";
    if (m.qk_norm) extras += ", q/k norms";
    if (m.tied_embeddings) extras += ", tied embeddings";
    if (!m.rope_scaling.type.empty()) {
      extras += fmt::format(", rope scaling {}{}", m.rope_scaling.type,
                            m.rope_scaling_left_out() ? " (left out, in the eager model too)" : "");
    }
    std::printf(
        "%s layer shapes (hidden %ld, %ld heads, %ld KV heads, head_dim %ld, MLP %ld, vocabulary %ld%s), %ld layers, "
        "random weights, bfloat16; prompts of %s tokens, %ld decode steps; read stream %.2f TB/s\n",
        m.name.c_str(), static_cast<long>(m.hidden), static_cast<long>(m.heads), static_cast<long>(m.kv_heads),
        static_cast<long>(m.head_dim), static_cast<long>(m.mlp), static_cast<long>(m.vocab), extras.c_str(),
        static_cast<long>(o.layers), contexts.c_str(), static_cast<long>(o.steps), read_stream / 1e12);
    bool ok = true;
    for (int64_t prompt : o.contexts) {
      for (int64_t batch : o.batches) ok = run_batch(w, o, batch, prompt, read_stream) && ok;
    }
    std::printf("triton_jit_llama: %s\n", ok ? "logits agree with the eager model" : "MISMATCH");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "triton_jit_llama: %s\n", e.what());
    return 1;
  }
}
