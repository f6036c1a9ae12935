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

}  // namespace

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
  constexpr std::array<std::string_view, 3> kFamilies = {"llama", "mistral", "qwen2"};
  if (std::find(kFamilies.begin(), kFamilies.end(), model_type) == kFamilies.end()) {
    refuse(source, fmt::format("model_type '{}' is not a decoder this demo runs (llama, mistral, qwen2)", model_type));
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
