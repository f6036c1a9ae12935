// triton_jit_llama's model shapes from a Hugging Face config.json (demo/model_config.h): the
// families it runs, the defaults their configs leave out, and an error naming the file and the
// field for everything else.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "model_config.h"

namespace {
using triton_jit::demo::model_from_config;

// The error model_from_config throws for `json`, or "" when it accepts it.
std::string error_of(const std::string& json) {
  try {
    model_from_config(json, "config.json");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(ModelConfig, ReadsLlamaShapesAndTheKnownModelsAreTheirConfigs) {
  const auto m = model_from_config(R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
      "num_attention_heads": 32, "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 500000.0,
      "vocab_size": 128256, "attention_bias": false, "rope_scaling": {"rope_type": "llama3"}})",
                                   "config.json");
  const auto known = triton_jit::demo::known_model("llama-3-8b");
  EXPECT_EQ(m.hidden, known.hidden);
  EXPECT_EQ(m.heads, known.heads);
  EXPECT_EQ(m.kv_heads, known.kv_heads);
  EXPECT_EQ(m.head_dim, 128);  // hidden / heads when the config has none
  EXPECT_EQ(m.mlp, known.mlp);
  EXPECT_EQ(m.vocab, known.vocab);
  EXPECT_EQ(m.rope_theta, known.rope_theta);
  EXPECT_EQ(m.rms_norm_eps, known.rms_norm_eps);
  EXPECT_FALSE(m.qkv_bias);
  EXPECT_EQ(m.name, "llama (config.json)");
}

TEST(ModelConfig, Qwen2HasQkvBiasesAndDefaultsFillWhatTheConfigLeavesOut) {
  const auto m = model_from_config(R"({"model_type": "qwen2", "_name_or_path": "Qwen/Qwen2.5-0.5B",
      "hidden_size": 896, "num_attention_heads": 14, "num_key_value_heads": 2, "intermediate_size": 4864,
      "vocab_size": 151936, "head_dim": null})",
                                   "q.json");
  EXPECT_TRUE(m.qkv_bias);
  EXPECT_EQ(m.head_dim, 64);
  EXPECT_EQ(m.rope_theta, 10000.0);
  EXPECT_EQ(m.name, "Qwen/Qwen2.5-0.5B");
  EXPECT_EQ(triton_jit::demo::known_model("qwen2.5-7b").qkv_bias, true);
  const auto mha = model_from_config(R"({"model_type": "mistral", "hidden_size": 2048, "num_attention_heads": 16,
      "intermediate_size": 5632, "vocab_size": 32000, "attention_bias": true})",
                                     "m.json");
  EXPECT_EQ(mha.kv_heads, 16);  // no num_key_value_heads: multi-head attention
  EXPECT_TRUE(mha.qkv_bias);
}

TEST(ModelConfig, EveryRefusalNamesTheFileAndWhatIsWrong) {
  const std::string base = R"("hidden_size": 4096, "num_attention_heads": 32, "intermediate_size": 14336)";
  EXPECT_EQ(error_of("{\"model_type\": \"llama\", " + base + "}"), "model config config.json: 'vocab_size' is missing");
  EXPECT_EQ(error_of("{\"model_type\": \"gpt2\", " + base + "}"),
            "model config config.json: model_type 'gpt2' is not a decoder this demo runs (llama, mistral, qwen2)");
  EXPECT_EQ(error_of(R"({"model_type": "llama", "hidden_size": "4096"})"),
            "model config config.json: 'hidden_size' must be a positive integer, got \"4096\"");
  EXPECT_EQ(error_of("{\"model_type\": \"llama\", \"vocab_size\": 10, \"num_key_value_heads\": 6, " + base + "}"),
            "model config config.json: num_attention_heads (32) must be a multiple of num_key_value_heads (6)");
  EXPECT_EQ(error_of("{\"model_type\": \"llama\", \"vocab_size\": 10, \"head_dim\": 96, " + base + "}"),
            "model config config.json: head_dim 96 is not one the attention kernels take (64, 128, 256)");
  EXPECT_EQ(error_of("{\"model_type\": \"llama\", \"vocab_size\": 10, \"rope_theta\": -1, " + base + "}"),
            "model config config.json: 'rope_theta' must be a positive number, got -1");
  EXPECT_EQ(error_of("{\"model_type\": \"llama\", \"vocab_size\": 10, \"attention_bias\": 1, " + base + "}"),
            "model config config.json: 'attention_bias' must be true or false, got 1");
  EXPECT_EQ(error_of("[1, 2]"), "model config config.json: expected a JSON object");
  EXPECT_EQ(error_of("{\"model_type\": 3}"), "model config config.json: 'model_type' is missing or not a string");
  EXPECT_NE(error_of("{\"model_type\": ").find("model config config.json: not JSON: "), std::string::npos);
  EXPECT_THROW(triton_jit::demo::known_model("llama-2"), std::invalid_argument);
}
