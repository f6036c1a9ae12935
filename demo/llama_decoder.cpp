// triton_jit_llama: a Llama-style decoder run from C++ on the operator library, checked against
// the same model written in PyTorch eager (ATen ops, as Hugging Face's Llama is written), both in
// this process with the same random weights at Llama-3-8B layer shapes.
//
//   ours: embedding, per layer rms_norm, qkv (cuBLAS), rotary with the KV-cache write (one launch), attention
//   (flash_attn_varlen at prefill, paged_attention at decode), o-proj, fused residual rms_norm,
//   gate/up, silu_and_mul, down; the final norm, lm_head, greedy argmax and top-k sampling. The
//   decode step, cache-slot bookkeeping included, is captured once into a CUDA graph and replayed.
//   eager: a dense KV cache, rms_norm and rotary written in ATen ops, SDPA, no graph.
//
// Prefill of `batch` prompts of `prompt` tokens, then `steps` decode steps; the eager model reads
// the tokens ours chose (teacher forcing) so that every step's logits compare. Prints prefill
// tokens/s, decode tokens/s and per-token latency of both. Exit code 0 when the logits agree.
//   triton_jit_llama [--layers N] [--batch B[,B...]] [--prompt P] [--steps S]
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <triton_jit/torch.h>

#include "common/ops.h"

namespace {

namespace ops = triton_jit::ops;
using at::Tensor;

constexpr int64_t kHidden = 4096, kHeads = 32, kKvHeads = 8, kHeadDim = 128, kMlp = 14336, kVocab = 128256;
constexpr int64_t kPage = 16;
constexpr double kEps = 1e-5;

struct Layer {
  Tensor norm_in, w_qkv, w_o, norm_post, w_gate_up, w_down;
};

struct Weights {
  Tensor embedding, final_norm, lm_head, cos, sin;  // cos, sin: [max_position, head_dim / 2] float32
  std::vector<Layer> layers;
};

Weights make_weights(int64_t layers, int64_t max_position) {
  auto bf16 = at::TensorOptions().device(at::kCUDA).dtype(at::kBFloat16);
  auto linear = [&](int64_t out, int64_t in) { return at::randn({out, in}, bf16) * 0.02; };
  auto norm = [&] { return 1 + at::randn({kHidden}, bf16) * 0.1; };
  Weights w;
  w.embedding = at::randn({kVocab, kHidden}, bf16);
  for (int64_t l = 0; l < layers; ++l) {
    w.layers.push_back({norm(), linear((kHeads + 2 * kKvHeads) * kHeadDim, kHidden), linear(kHidden, kHidden), norm(),
                        linear(2 * kMlp, kHidden), linear(kHidden, kMlp)});
  }
  w.final_norm = norm();
  w.lm_head = linear(kVocab, kHidden);
  auto f32 = bf16.dtype(at::kFloat);
  const Tensor inv_freq = at::pow(500000.0, -at::arange(0, kHeadDim, 2, f32) / kHeadDim);
  const Tensor angles = at::outer(at::arange(max_position, f32), inv_freq);
  w.cos = angles.cos();
  w.sin = angles.sin();
  return w;
}

// ---- ours: the operator library, a paged cache ------------------------------------------------

struct PagedCache {
  std::vector<Tensor> keys, values;  // per layer [blocks, kPage, kv_heads, head_dim]
  Tensor block_tables;               // [batch, blocks per sequence] int32
};

PagedCache make_cache(int64_t layers, int64_t batch, int64_t max_context) {
  const int64_t per_seq = (max_context + kPage - 1) / kPage;
  auto bf16 = at::TensorOptions().device(at::kCUDA).dtype(at::kBFloat16);
  PagedCache c;
  for (int64_t l = 0; l < layers; ++l) {
    c.keys.push_back(at::zeros({batch * per_seq, kPage, kKvHeads, kHeadDim}, bf16));
    c.values.push_back(at::zeros({batch * per_seq, kPage, kKvHeads, kHeadDim}, bf16));
  }
  // blocks handed out shuffled, as an allocator's free list would after a while
  c.block_tables = at::randperm(batch * per_seq, bf16.dtype(at::kLong)).view({batch, per_seq}).to(at::kInt);
  return c;
}

Tensor slots_of(const Tensor& block_tables, const Tensor& positions /* [batch, n] int64 */) {
  return block_tables.to(at::kLong).gather(1, positions.div(kPage, "floor")) * kPage + positions.remainder(kPage);
}

// The layers over `tokens` [T] at `positions` [T]; attention is the caller's (prefill or decode).
// Returns the final hidden state, normalised, [T, hidden].
template <class Attention>
Tensor run_layers(const Weights& w, PagedCache& cache, const Tensor& tokens, const Tensor& positions,
                  const Tensor& slots, Attention&& attention) {
  const int64_t t = tokens.size(0);
  Tensor x = ops::embedding(w.embedding, tokens);
  Tensor h = ops::rms_norm(x, {kHidden}, w.layers[0].norm_in, kEps);
  for (size_t l = 0; l < w.layers.size(); ++l) {
    const Layer& layer = w.layers[l];
    const Tensor qkv = at::linear(h, layer.w_qkv);
    const Tensor v = qkv.narrow(1, (kHeads + kKvHeads) * kHeadDim, kKvHeads * kHeadDim).view({t, kKvHeads, kHeadDim});
    const auto [q, k] =
        ops::rotary_and_cache(qkv.narrow(1, 0, kHeads * kHeadDim).view({t, kHeads, kHeadDim}),
                              qkv.narrow(1, kHeads * kHeadDim, kKvHeads * kHeadDim).view({t, kKvHeads, kHeadDim}), v,
                              w.cos, w.sin, positions, cache.keys[l], cache.values[l], slots);
    const Tensor a = attention(q, k, v, cache.keys[l], cache.values[l]);
    auto [h2, x2] = ops::fused_add_rms_norm(at::linear(a.reshape({t, kHidden}), layer.w_o), x, layer.norm_post, kEps);
    const Tensor down = at::linear(ops::silu_and_mul(at::linear(h2, layer.w_gate_up)), layer.w_down);
    const Tensor& next_norm = l + 1 < w.layers.size() ? w.layers[l + 1].norm_in : w.final_norm;
    std::tie(h, x) = ops::fused_add_rms_norm(down, x2, next_norm, kEps);
  }
  return h;
}

// ---- eager: the same model as PyTorch code writes it --------------------------------------------

Tensor rms_norm_eager(const Tensor& x, const Tensor& weight) {
  const Tensor xf = x.to(at::kFloat);
  return weight * (xf * at::rsqrt(xf.pow(2).mean(-1, true) + kEps)).to(x.scalar_type());
}

Tensor rotate_eager(const Tensor& x /* [B, heads, S, D] */, const Tensor& cos, const Tensor& sin) {
  const int64_t half = kHeadDim / 2;
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
      keys.push_back(at::zeros({batch, kKvHeads, max_context, kHeadDim}, bf16));
      values.push_back(at::zeros({batch, kKvHeads, max_context, kHeadDim}, bf16));
    }
    cos_full = at::cat({w.cos, w.cos}, -1).to(at::kBFloat16);
    sin_full = at::cat({w.sin, w.sin}, -1).to(at::kBFloat16);
  }

  // tokens [B, S] at positions start .. start + S - 1; logits of the last position [B, vocab].
  Tensor forward(const Tensor& tokens, int64_t start) {
    const int64_t b = tokens.size(0), s = tokens.size(1);
    const Tensor cos = cos_full.narrow(0, start, s), sin = sin_full.narrow(0, start, s);
    Tensor x = at::embedding(w.embedding, tokens);
    for (size_t l = 0; l < w.layers.size(); ++l) {
      const Layer& layer = w.layers[l];
      const Tensor qkv = at::linear(rms_norm_eager(x, layer.norm_in), layer.w_qkv);
      auto split = qkv.split({kHeads * kHeadDim, kKvHeads * kHeadDim, kKvHeads * kHeadDim}, -1);
      const Tensor q = rotate_eager(split[0].view({b, s, kHeads, kHeadDim}).transpose(1, 2), cos, sin);
      const Tensor k = rotate_eager(split[1].view({b, s, kKvHeads, kHeadDim}).transpose(1, 2), cos, sin);
      keys[l].narrow(2, start, s).copy_(k);
      values[l].narrow(2, start, s).copy_(split[2].view({b, s, kKvHeads, kHeadDim}).transpose(1, 2));
      const Tensor k_all = keys[l].narrow(2, 0, start + s).repeat_interleave(kHeads / kKvHeads, 1);
      const Tensor v_all = values[l].narrow(2, 0, start + s).repeat_interleave(kHeads / kKvHeads, 1);
      const Tensor a = at::scaled_dot_product_attention(q, k_all, v_all, {}, 0.0, /*is_causal=*/s > 1);
      x = x + at::linear(a.transpose(1, 2).reshape({b, s, kHidden}), layer.w_o);
      auto gate_up = at::linear(rms_norm_eager(x, layer.norm_post), layer.w_gate_up).chunk(2, -1);
      x = x + at::linear(at::silu(gate_up[0]) * gate_up[1], layer.w_down);
    }
    return at::linear(rms_norm_eager(x.select(1, s - 1), w.final_norm), w.lm_head);
  }
};

double relative_error(const Tensor& ours, const Tensor& reference) {
  const Tensor r = reference.to(at::kFloat);
  return ((ours.to(at::kFloat) - r).abs().max() / r.abs().max()).item<double>();
}

struct Options {
  int64_t layers = 4, prompt = 128, steps = 32;
  std::vector<int64_t> batches = {1, 32};
};

// One batch size: prefill, check, decode graph, check, time. Returns whether the logits agreed.
bool run_batch(const Weights& w, const Options& o, int64_t batch) {
  const int64_t max_context = o.prompt + o.steps + 1;
  auto long_options = at::TensorOptions().device(at::kCUDA).dtype(at::kLong);
  PagedCache cache = make_cache(o.layers, batch, max_context);
  EagerModel eager(w, batch, max_context);
  const Tensor prompts = at::randint(0, kVocab, {batch, o.prompt}, long_options);

  // ---- prefill: a varlen batch (equal lengths here, so that the eager model batches them too)
  const Tensor positions = at::arange(o.prompt, long_options).repeat({batch, 1});
  const Tensor prefill_slots = slots_of(cache.block_tables, positions).view(-1);
  const Tensor cu = at::arange(0, (batch + 1) * o.prompt, o.prompt, long_options.dtype(at::kInt));
  auto prefill = [&] {
    auto attention = [&](const Tensor& q, const Tensor& k, const Tensor& v, const Tensor&, const Tensor&) {
      return ops::flash_attn_varlen(q, k, v, cu, cu, o.prompt, o.prompt, std::nullopt, true);
    };
    const Tensor h = run_layers(w, cache, prompts.view(-1), positions.view(-1), prefill_slots, attention);
    return at::linear(h.view({batch, o.prompt, kHidden}).select(1, o.prompt - 1), w.lm_head);
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
  Tensor step_positions = at::full({batch}, o.prompt, long_options);
  Tensor seq_lens = at::full({batch}, o.prompt + 1, long_options.dtype(at::kInt));
  Tensor slots = slots_of(cache.block_tables, step_positions.unsqueeze(1)).view(-1);
  Tensor step_logits = at::empty({batch, kVocab}, logits.options());
  auto step = [&] {
    auto attention = [&](const Tensor& q, const Tensor&, const Tensor&, const Tensor& keys, const Tensor& values) {
      return ops::paged_attention(q, keys, values, cache.block_tables, seq_lens);
    };
    const Tensor h = run_layers(w, cache, tokens, step_positions, slots, attention);
    step_logits.copy_(at::linear(h, w.lm_head));
    tokens.copy_(ops::argmax(step_logits, -1));
    step_positions.add_(1);
    seq_lens.add_(1);
    slots.copy_(slots_of(cache.block_tables, step_positions.unsqueeze(1)).view(-1));
  };
  // The first step runs eagerly (compiles what the graph will launch); the graph then holds one step.
  at::cuda::CUDAGraph graph;
  {
    c10::cuda::CUDAStreamGuard side(at::cuda::getStreamFromPool());
    const Tensor fed = tokens.clone();
    step();
    at::cuda::getCurrentCUDAStream().synchronize();
    const Tensor first_reference = eager.forward(fed.unsqueeze(1), o.prompt);
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
    graph.capture_begin();
    step();
    graph.capture_end();
    for (int64_t s = 1; s < o.steps; ++s) {
      const Tensor fed_now = tokens.clone();
      graph.replay();
      const Tensor reference = eager.forward(fed_now.unsqueeze(1), o.prompt + s);
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
  step_positions.fill_(o.prompt);
  seq_lens.fill_(o.prompt + 1);
  const double step_ours = time_ms(repeats, [&] { graph.replay(); });
  const Tensor one = tokens.unsqueeze(1).clone();
  const double step_eager = time_ms(repeats, [&] { eager.forward(one, o.prompt); });
  std::printf("batch %ld: prefill %ld tokens: ours %.2f ms (%.0f tokens/s), eager %.2f ms (%.0f tokens/s), %.2fx\n",
              static_cast<long>(batch), static_cast<long>(batch * o.prompt), prefill_ours,
              batch * o.prompt / prefill_ours * 1e3, prefill_eager, batch * o.prompt / prefill_eager * 1e3,
              prefill_ours / prefill_eager);
  std::printf(
      "batch %ld: decode step at context %ld: ours (graph) %.3f ms (%.0f tokens/s), eager %.3f ms "
      "(%.0f tokens/s), %.2fx (target <= 0.8x: %s)\n",
      static_cast<long>(batch), static_cast<long>(o.prompt + 1), step_ours, batch / step_ours * 1e3, step_eager,
      batch / step_eager * 1e3, step_ours / step_eager, step_ours <= 0.8 * step_eager ? "met" : "missed");
  return ok;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--layers") {
      o.layers = std::stoll(value);
    } else if (flag == "--prompt") {
      o.prompt = std::stoll(value);
    } else if (flag == "--steps") {
      o.steps = std::stoll(value);
    } else if (flag == "--batch") {
      o.batches.clear();
      for (size_t start = 0; start <= value.size();) {
        const size_t comma = std::min(value.find(',', start), value.size());
        o.batches.push_back(std::stoll(value.substr(start, comma - start)));
        start = comma + 1;
      }
    } else {
      throw std::invalid_argument("unknown option " + flag);
    }
  }
  if (o.layers < 1 || o.prompt < 1 || o.steps < 2) {
    throw std::invalid_argument("--layers and --prompt must be >= 1, --steps >= 2");
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
    const Weights w = make_weights(o.layers, o.prompt + o.steps + 2);
    std::printf(
        "Llama-3-8B layer shapes (hidden %ld, %ld heads, %ld KV heads, MLP %ld, vocabulary %ld), %ld layers, "
        "random weights, bfloat16; prompts of %ld tokens, %ld decode steps\n",
        static_cast<long>(kHidden), static_cast<long>(kHeads), static_cast<long>(kKvHeads), static_cast<long>(kMlp),
        static_cast<long>(kVocab), static_cast<long>(o.layers), static_cast<long>(o.prompt),
        static_cast<long>(o.steps));
    bool ok = true;
    for (int64_t batch : o.batches) ok = run_batch(w, o, batch) && ok;
    std::printf("triton_jit_llama: %s\n", ok ? "logits agree with the eager model" : "MISMATCH");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "triton_jit_llama: %s\n", e.what());
    return 1;
  }
}
