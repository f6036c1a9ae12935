#include "model_config.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

namespace triton_jit::demo {
namespace {

using nlohmann::json;

[[noreturn]] void refuse(std::string_view source, std::string_view what) {
  throw std::invalid_argument(fmt::format("model config {}: {}", source, what));
}

// A positive integer field; `fallback` when absent (or null) and a fallback is given.
int64_t positive(const json& config, const char* field, std::string_view source, int64_t fallback = 0) {
  const auto it = config.find(field);
  if (it == config.end() || it->is_null()) {
    if (fallback > 0) return fallback;
    refuse(source, fmt::format("'{}' is missing", field));
  }
  if (!it->is_number_integer() || it->get<int64_t>() < 1 || it->get<int64_t>() > (int64_t{1} << 31)) {
    refuse(source, fmt::format("'{}' must be a positive integer, got {}", field, it->dump()));
  }
  return it->get<int64_t>();
}

double positive_number(const json& config, const char* field, std::string_view source, double fallback) {
  const auto it = config.find(field);
  if (it == config.end() || it->is_null()) return fallback;
  if (!it->is_number() || !(it->get<double>() > 0) || !std::isfinite(it->get<double>())) {
    refuse(source, fmt::format("'{}' must be a positive number, got {}", field, it->dump()));
  }
  return it->get<double>();
}

// rope_scaling: null, or an object whose "rope_type" (older configs: "type") names the kind.
ModelShape::RopeScaling rope_scaling(const json& config, std::string_view source) {
  ModelShape::RopeScaling r;
  const auto it = config.find("rope_scaling");
  if (it == config.end() || it->is_null()) return r;
  if (!it->is_object()) refuse(source, fmt::format("'rope_scaling' must be an object or null, got {}", it->dump()));
  const auto type = it->contains("rope_type") ? it->find("rope_type") : it->find("type");
  if (type == it->end() || !type->is_string()) refuse(source, "'rope_scaling' has no 'rope_type' string");
  r.type = type->get<std::string>() == "default" ? "" : type->get<std::string>();
  if (r.type != "linear" && r.type != "llama3") return r;  // named, and left out
  const auto number = [&](const char* field, double fallback) {
    const auto f = it->find(field);
    if (f == it->end() || f->is_null()) {
      if (fallback > 0) return fallback;
      refuse(source, fmt::format("'rope_scaling' of type {} needs '{}'", r.type, field));
    }
    if (!f->is_number() || !(f->get<double>() > 0) || !std::isfinite(f->get<double>())) {
      refuse(source, fmt::format("'rope_scaling.{}' must be a positive number, got {}", field, f->dump()));
    }
    return f->get<double>();
  };
  r.factor = number("factor", 0);
  if (r.type == "llama3") {
    r.low_freq_factor = number("low_freq_factor", 0);
    r.high_freq_factor = number("high_freq_factor", 0);
    if (!(r.high_freq_factor > r.low_freq_factor)) {
      refuse(source, fmt::format("'rope_scaling.high_freq_factor' ({}) must exceed 'low_freq_factor' ({})",
                                 r.high_freq_factor, r.low_freq_factor));
    }
    r.original_max_position = positive(*it, "original_max_position_embeddings", source);
  }
  return r;
}

}  // namespace

std::vector<double> rope_inverse_frequencies(const ModelShape& m) {
  std::vector<double> inv(static_cast<std::size_t>(m.head_dim / 2));
  const ModelShape::RopeScaling& r = m.rope_scaling;
  const double pi = 3.14159265358979323846;
  for (std::size_t i = 0; i < inv.size(); ++i) {
    double f = std::pow(m.rope_theta, -static_cast<double>(2 * i) / static_cast<double>(m.head_dim));
    if (r.type == "linear") {
      f /= r.factor;
    } else if (r.type == "llama3") {
      // Long wavelengths slow down by the factor, short ones keep theirs, and those between
      // blend the two by where the wavelength falls.
      const double context = static_cast<double>(r.original_max_position);
      const double wavelength = 2 * pi / f;
      if (wavelength > context / r.low_freq_factor) {
        f /= r.factor;
      } else if (wavelength >= context / r.high_freq_factor) {
        const double smooth = (context / wavelength - r.low_freq_factor) / (r.high_freq_factor - r.low_freq_factor);
        f = (1 - smooth) * f / r.factor + smooth * f;
      }
    }
    inv[i] = f;
  }
  return inv;
}

ModelShape known_model(std::string_view name) {
  if (name == "llama-3-8b") return {"Llama-3-8B", 4096, 32, 8, 128, 14336, 128256, 500000.0, 1e-5, false};
  if (name == "qwen2.5-7b") return {"Qwen2.5-7B", 3584, 28, 4, 128, 18944, 152064, 1000000.0, 1e-6, true};
  throw std::invalid_argument(fmt::format("--model: expected llama-3-8b or qwen2.5-7b, got {}", name));
}

ModelShape model_from_config(std::string_view json_text, std::string_view source) {
  json config;
  try {
    config = json::parse(json_text);
  } catch (const json::exception& e) {
    refuse(source, fmt::format("not JSON: {}", e.what()));
  }
  if (!config.is_object()) refuse(source, "expected a JSON object");
  const auto type = config.find("model_type");
  if (type == config.end() || !type->is_string()) refuse(source, "'model_type' is missing or not a string");
  const std::string model_type = type->get<std::string>();
  constexpr std::array<std::string_view, 4> kFamilies = {"llama", "mistral", "qwen2", "qwen3"};
  if (std::find(kFamilies.begin(), kFamilies.end(), model_type) == kFamilies.end()) {
    refuse(source,
           fmt::format("model_type '{}' is not a decoder this demo runs (llama, mistral, qwen2, qwen3)", model_type));
  }
  ModelShape m;
  m.hidden = positive(config, "hidden_size", source);
  m.heads = positive(config, "num_attention_heads", source);
  m.kv_heads = positive(config, "num_key_value_heads", source, m.heads);
  m.head_dim = positive(config, "head_dim", source, m.hidden / m.heads);
  m.mlp = positive(config, "intermediate_size", source);
  m.vocab = positive(config, "vocab_size", source);
  m.rope_theta = positive_number(config, "rope_theta", source, 10000.0);
  m.rms_norm_eps = positive_number(config, "rms_norm_eps", source, 1e-6);
  // Qwen2's attention always has q/k/v biases; Llama's and Mistral's where attention_bias says so.
  const auto bias = config.find("attention_bias");
  if (bias != config.end() && !bias->is_boolean() && !bias->is_null()) {
    refuse(source, fmt::format("'attention_bias' must be true or false, got {}", bias->dump()));
  }
  m.qkv_bias = model_type == "qwen2" || (bias != config.end() && bias->is_boolean() && bias->get<bool>());
  m.qk_norm = model_type == "qwen3";
  const auto tied = config.find("tie_word_embeddings");
  if (tied != config.end() && !tied->is_boolean() && !tied->is_null()) {
    refuse(source, fmt::format("'tie_word_embeddings' must be true or false, got {}", tied->dump()));
  }
  m.tied_embeddings = tied != config.end() && tied->is_boolean() && tied->get<bool>();
  m.rope_scaling = rope_scaling(config, source);
  if (m.heads % m.kv_heads != 0) {
    refuse(source,
           fmt::format("num_attention_heads ({}) must be a multiple of num_key_value_heads ({})", m.heads, m.kv_heads));
  }
  if (m.head_dim != 64 && m.head_dim != 128 && m.head_dim != 256) {
    refuse(source, fmt::format("head_dim {} is not one the attention kernels take (64, 128, 256)", m.head_dim));
  }
  const auto name = config.find("_name_or_path");
  m.name = name != config.end() && name->is_string() && !name->get<std::string>().empty()
               ? name->get<std::string>()
               : fmt::format("{} ({})", model_type, source);
  return m;
}

}  // namespace triton_jit::demo
