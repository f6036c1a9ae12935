// The layer shapes of a Llama-style decoder: the two the demo knows by name, or any read from a
// Hugging Face config.json of a model of that family (Llama, Mistral, Qwen2, Qwen3).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace triton_jit::demo {

struct ModelShape {
  std::string name;
  int64_t hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, mlp = 0, vocab = 0;
  double rope_theta = 10000.0;
  double rms_norm_eps = 1e-6;
  bool qkv_bias = false;         // Qwen2's q, k and v projections have biases
  bool qk_norm = false;          // Qwen3: an RMS norm over each head's query and key before the rotation
  bool tied_embeddings = false;  // the lm_head is the embedding (tie_word_embeddings)
  // rope_scaling: "" (none), "linear" and "llama3" (Llama 3.1 and 3.2) change the rotation's
  // frequencies; any other kind is named here and left out, by the eager model too.
  struct RopeScaling {
    std::string type;
    double factor = 1, low_freq_factor = 1, high_freq_factor = 4;
    int64_t original_max_position = 8192;
  } rope_scaling;

  bool rope_scaling_left_out() const {
    return !rope_scaling.type.empty() && rope_scaling.type != "linear" && rope_scaling.type != "llama3";
  }
};

// The rotation's inverse frequencies, head_dim / 2 of them: rope_theta^(-2i / head_dim), scaled
// as rope_scaling says (Hugging Face's formulas for "linear" and "llama3").
std::vector<double> rope_inverse_frequencies(const ModelShape& m);

// "llama-3-8b" or "qwen2.5-7b" (their config.json's values); throws std::invalid_argument naming
// the known ones otherwise.
ModelShape known_model(std::string_view name);

// The shapes in the text of a config.json (`source` names it in errors). Throws
// std::invalid_argument naming the source and the field for malformed JSON, a missing or
// mistyped field, a model_type the decoder does not run, or shapes it cannot (heads not a
// multiple of KV heads, a head_dim the attention kernels do not take).
ModelShape model_from_config(std::string_view json_text, std::string_view source);

}  // namespace triton_jit::demo
